package dev.tally.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Checks that a {@code tools/call} reached the upstream as the client sent it, with only {@code
 * params._meta["dev.tally/executionId"]} and the trace context Tally sets ({@code traceparent},
 * {@code tracestate}) added (or their values replaced): the bytes outside {@code params._meta} are
 * the client's, the raw bytes of {@code params.arguments} are the client's, and read with an exact
 * mapper (decimals as written, trailing zeros kept) the two messages are equal once those members
 * are taken out.
 */
public final class ForwardedBytes {
  /** The execution id member Tally adds. */
  public static final String EXECUTION_ID = "dev.tally/executionId";

  /** The members of {@code params._meta} Tally sets on a dispatched call. */
  private static final java.util.List<String> SET_BY_TALLY =
      java.util.List.of(EXECUTION_ID, "traceparent", "tracestate");

  private static final ObjectMapper EXACT =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false)
          .build();

  private ForwardedBytes() {}

  /** Where a member of {@code params} sits: its name's first byte, its value's first and end. */
  record Span(int nameStart, int valueStart, int valueEnd) {}

  /** Asserts the rule of the class comment; returns the execution id the upstream got. */
  public static String assertForwardedExactly(byte[] sent, byte[] received) {
    String description = "sent " + utf8(sent) + "\nreceived " + utf8(received);
    JsonNode got = read(received);
    JsonNode id = got.path("params").path("_meta").path(EXECUTION_ID);
    assertThat(id.isTextual()).as("execution id in %s", description).isTrue();
    assertThat(id.textValue()).as(description).startsWith("act_");

    Span sentArgs = span(sent, "arguments");
    Span gotArgs = span(received, "arguments");
    assertThat(slice(received, gotArgs.valueStart(), gotArgs.valueEnd()))
        .as("raw arguments in %s", description)
        .isEqualTo(slice(sent, sentArgs.valueStart(), sentArgs.valueEnd()));

    Span sentMeta = span(sent, "_meta");
    Span gotMeta = span(received, "_meta");
    assertThat(gotMeta).as(description).isNotNull();
    if (sentMeta != null) {
      // The member stays where it was; only its value may differ.
      assertThat(slice(received, 0, gotMeta.valueStart()))
          .as("bytes before _meta's value in %s", description)
          .isEqualTo(slice(sent, 0, sentMeta.valueStart()));
      assertThat(slice(received, gotMeta.valueEnd(), received.length))
          .as("bytes after _meta's value in %s", description)
          .isEqualTo(slice(sent, sentMeta.valueEnd(), sent.length));
    } else {
      assertThat(withoutMember(received, gotMeta))
          .as("the message without the added _meta member in %s", description)
          .isEqualTo(sent);
    }

    JsonNode expected = read(sent);
    ObjectNode gotParams = (ObjectNode) got.get("params");
    ((ObjectNode) gotParams.get("_meta")).remove(SET_BY_TALLY);
    JsonNode sentMetaValue = expected.path("params").path("_meta");
    if (sentMetaValue.isObject()) {
      ((ObjectNode) sentMetaValue).remove(SET_BY_TALLY);
    } else if (gotParams.get("_meta").isEmpty()) {
      // Absent or null before: Tally made the object for its member.
      gotParams.remove("_meta");
      ((ObjectNode) expected.get("params")).remove("_meta");
    }
    assertThat(got)
        .as("exactly read, without the execution id: %s", description)
        .isEqualTo(expected);
    return id.textValue();
  }

  /** {@code b} with the member of {@code span} and the comma that joined it removed. */
  private static byte[] withoutMember(byte[] b, Span span) {
    int from = span.nameStart();
    int to = span.valueEnd();
    if (to < b.length && b[to] == ',') {
      to++;
    } else {
      int before = from - 1;
      while (before >= 0 && isSpace(b[before])) {
        before--;
      }
      if (before >= 0 && b[before] == ',') {
        from = before;
      }
    }
    byte[] out = new byte[b.length - (to - from)];
    System.arraycopy(b, 0, out, 0, from);
    System.arraycopy(b, to, out, from, b.length - to);
    return out;
  }

  /** The span of {@code params.<name>} in {@code b}, or null when there is no such member. */
  static Span span(byte[] b, String name) {
    try (JsonParser p = EXACT.getFactory().createParser(b)) {
      p.nextToken();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        boolean params = "params".equals(p.currentName());
        p.nextToken();
        if (!params) {
          p.skipChildren();
          continue;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          int nameStart = (int) p.currentTokenLocation().getByteOffset();
          boolean wanted = name.equals(p.currentName());
          p.nextToken();
          int valueStart = (int) p.currentTokenLocation().getByteOffset();
          EXACT.readTree(p);
          if (wanted) {
            return new Span(nameStart, valueStart, (int) p.currentLocation().getByteOffset());
          }
        }
        return null;
      }
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode read(byte[] b) {
    try {
      return EXACT.readTree(b);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean isSpace(byte c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
  }

  private static byte[] slice(byte[] b, int from, int to) {
    return Arrays.copyOfRange(b, from, to);
  }

  private static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
