package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.audit.AuditTimeline;
import dev.tally.core.audit.AuditVerification;
import dev.tally.core.audit.AuditVerifier;
import dev.tally.core.fingerprint.KeyFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tally registered with {@code ServletContext.addFilter} and configured by init-params only. */
class FilterRegistrationIT {
  @Test
  void programmaticRegistrationWithInitParamsGuardsTheEndpoint(@TempDir Path dir) throws Exception {
    Path keys = dir.resolve("hmac.keys");
    KeyFiles.generate(keys, Clock.systemUTC());
    Path yaml = dir.resolve("tally.yaml");
    java.nio.file.Files.writeString(yaml, "filter:\n  framing: json\n");
    SdkApp app =
        SdkApp.withRegisteredFilter(
            Map.of(
                TallyFilter.CONFIG_PARAM,
                yaml.toString(),
                "store",
                "journal:" + dir.resolve("journal"),
                "hmac.keyFile",
                keys.toString()));
    String executionId;
    String message = "registered-" + UUID.randomUUID();
    try {
      RawMcp raw = new RawMcp(app.endpoint()).initialize();
      Map<String, String> key = new java.util.HashMap<>(raw.session);
      key.put("Idempotency-Key", "reg-" + UUID.randomUUID());

      raw.post(RawMcp.toolCall(SdkApp.WRITE, message).toString(), key);
      var second = raw.post(RawMcp.toolCall(SdkApp.WRITE, message).toString(), key);

      JsonNode replay = RawMcp.responseOf(second);
      assertThat(second.headers().firstValue("Content-Type").orElse(""))
          .startsWith("application/json");
      assertThat(replay.at("/result/_meta/dev.tally~1replay/executionId").asText())
          .startsWith("act_");
      assertThat(app.writes.get()).isEqualTo(1);
      assertThat(app.seen.peek().get(1)).startsWith("act_");
      executionId = replay.at("/result/_meta/dev.tally~1replay/executionId").asText();
    } finally {
      app.close();
    }

    // The journal store the filter opened has its audit journals inside it, as tally serve's.
    Path audit = dir.resolve("journal").resolve("audit");
    AuditVerification verified = AuditVerifier.create().verify(audit, Optional.empty());
    assertThat(verified.outcome()).isEqualTo(AuditVerification.Outcome.OK);
    String timeline = AuditTimeline.render(audit, Optional.of(executionId));
    assertThat(timeline).contains("dispatched", "completed", "delivered", "replayed");
    List<JsonNode> entries = new java.util.ArrayList<>();
    for (String line : Files.readAllLines(audit.resolve("activity.jsonl"))) {
      entries.add(new ObjectMapper().readTree(line));
    }
    assertThat(entries)
        .filteredOn(e -> e.path("execution").asText().equals(executionId))
        .extracting(e -> e.path("target").asText())
        .containsOnly("app"); // filter.target
    // No raw argument value reaches the audit trail.
    assertThat(Files.readString(audit.resolve("activity.jsonl"))).doesNotContain(message);
  }
}
