package dev.tally.sidecar.app;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.event.KeyValuePair;

/**
 * The sidecar's JSON log layout ({@code TALLY_LOG_FORMAT=json}, docs/observability.md#logs): one
 * object per line whose members are {@code time} (ISO-8601, UTC, milliseconds), {@code level},
 * {@code logger}, {@code message}, then each SLF4J key-value pair of the event as a member of its
 * own ({@code execution_id}, {@code tool}, {@code decision}, {@code trace_id}, and the store's
 * {@code operation}, {@code code}), and {@code exception} when the event carries one. A pair whose
 * key is one of the fixed members, or repeats an earlier pair's, is dropped: the fixed members are
 * always Tally's. Logback's own {@code JsonEncoder} names them {@code timestamp}, {@code
 * loggerName} and nests the pairs in {@code kvpList}, which is not what the issue promised.
 */
public final class JsonLogLines extends EncoderBase<ILoggingEvent> {
  private static final JsonFactory JSON = new JsonFactory();
  private static final byte[] EMPTY = new byte[0];
  private static final Set<String> FIXED =
      Set.of("time", "level", "logger", "message", "exception");

  @Override
  public byte[] headerBytes() {
    return EMPTY;
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("time", time(event.getTimeStamp()));
      g.writeStringField("level", event.getLevel().toString());
      g.writeStringField("logger", event.getLoggerName());
      g.writeStringField("message", event.getFormattedMessage());
      List<KeyValuePair> pairs = event.getKeyValuePairs();
      if (pairs != null) {
        Set<String> seen = new HashSet<>();
        for (KeyValuePair kv : pairs) {
          if (kv.key == null || FIXED.contains(kv.key) || !seen.add(kv.key)) {
            continue;
          }
          if (kv.value == null) {
            g.writeNullField(kv.key);
          } else if (kv.value instanceof Number n && !(n instanceof Double || n instanceof Float)) {
            g.writeNumberField(kv.key, n.longValue());
          } else if (kv.value instanceof Boolean b) {
            g.writeBooleanField(kv.key, b);
          } else {
            g.writeStringField(kv.key, String.valueOf(kv.value));
          }
        }
      }
      IThrowableProxy t = event.getThrowableProxy();
      if (t != null) {
        g.writeStringField("exception", ThrowableProxyUtil.asString(t));
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.write('\n');
    return out.toByteArray();
  }

  @Override
  public byte[] footerBytes() {
    return EMPTY;
  }

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").withZone(ZoneOffset.UTC);

  private static String time(long millis) {
    return TIME.format(Instant.ofEpochMilli(millis));
  }
}
