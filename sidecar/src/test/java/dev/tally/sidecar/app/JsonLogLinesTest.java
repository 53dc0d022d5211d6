package dev.tally.sidecar.app;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.event.KeyValuePair;

class JsonLogLinesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static LoggingEvent event(String message, Object... pairs) {
    LoggerContext ctx = new LoggerContext();
    LoggingEvent e =
        new LoggingEvent(
            "x", ctx.getLogger("dev.tally.calls"), Level.WARN, message, null, new Object[0]);
    e.setTimeStamp(1_790_000_000_123L);
    for (int i = 0; i < pairs.length; i += 2) {
      e.addKeyValuePair(new KeyValuePair((String) pairs[i], pairs[i + 1]));
    }
    return e;
  }

  private static String encode(LoggingEvent e) {
    JsonLogLines encoder = new JsonLogLines();
    encoder.start();
    return new String(encoder.encode(e), StandardCharsets.UTF_8);
  }

  @Test
  void oneObjectPerLineWithTheFieldsAtTheTopLevel() throws Exception {
    String line =
        encode(
            event(
                "outcome_unknown: \"quoted\"\nsecond line",
                "execution_id",
                "act_01X",
                "tool",
                "create_ticket",
                "decision",
                "dispatch",
                "trace_id",
                null,
                "attempt",
                3));
    assertThat(line).endsWith("\n");
    assertThat(line.substring(0, line.length() - 1)).doesNotContain("\n");
    JsonNode n = JSON.readTree(line);
    List<String> names = new ArrayList<>();
    n.fieldNames().forEachRemaining(names::add);
    assertThat(names)
        .containsExactly(
            "time",
            "level",
            "logger",
            "message",
            "execution_id",
            "tool",
            "decision",
            "trace_id",
            "attempt");
    assertThat(n.get("time").asText()).isEqualTo("2026-09-21T14:13:20.123Z");
    assertThat(n.get("level").asText()).isEqualTo("WARN");
    assertThat(n.get("logger").asText()).isEqualTo("dev.tally.calls");
    assertThat(n.get("message").asText()).isEqualTo("outcome_unknown: \"quoted\"\nsecond line");
    assertThat(n.get("trace_id").isNull()).isTrue();
    assertThat(n.get("attempt").asInt()).isEqualTo(3);
  }

  @Test
  void aPairCannotOverwriteAFixedMemberNorRepeat() throws Exception {
    JsonNode n =
        JSON.readTree(
            encode(event("m", "level", "INFO", "message", "forged", "tool", "a", "tool", "b")));
    assertThat(n.get("level").asText()).isEqualTo("WARN");
    assertThat(n.get("message").asText()).isEqualTo("m");
    assertThat(n.get("tool").asText()).isEqualTo("a");
    assertThat(n.size()).isEqualTo(5);
  }
}
