package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.audit.AuditVerifier;
import dev.tally.core.audit.Canonicalizer;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a journal store the filter opens, a write-switch change made on {@link TallyAdminServlet} and
 * a status lookup made through the filter are entries of the verified audit chain (issue 18), as in
 * the sidecar: {@code control} and {@code status_lookup}, with no argument value.
 */
class FilterAuditControlIT {
  private static final String ALICE = "Bearer alice-audit-token-0123";
  private static final String ADMIN = "filter-audit-admin-0123456789abcdef";

  @TempDir Path dir;
  private final HttpClient http = HttpClient.newHttpClient();
  private SdkApp app;

  @BeforeEach
  void start() throws Exception {
    TallyConfig config =
        TallyConfig.parse(
            "store: journal:"
                + dir.resolve("journal")
                + "\ntools:\n  "
                + SdkApp.CLOSE
                + ":\n    class: status_check\n    statusTool: "
                + SdkApp.STATUS
                + "\n",
            "test",
            ConfigOverrides.none());
    app = SdkApp.withAdmin(config, ADMIN, Clock.systemUTC());
  }

  @AfterEach
  void stop() throws Exception {
    app.close();
  }

  private String activity() {
    try {
      return Files.readString(dir.resolve("journal").resolve("audit").resolve("activity.jsonl"));
    } catch (java.io.IOException e) {
      return "";
    }
  }

  private void until(java.util.function.BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!done.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(done.getAsBoolean()).as(activity()).isTrue();
  }

  @Test
  void switchChangesAndStatusLookupsAreInTheVerifiedChain() throws Exception {
    HttpResponse<String> off =
        http.send(
            HttpRequest.newBuilder(app.admin("/v1/writes"))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + ADMIN)
                .POST(HttpRequest.BodyPublishers.ofString("{\"enabled\":false}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(off.statusCode()).as(off.body()).isEqualTo(200);
    app.filter.gate().writes().writeSwitch().setGlobal(true);
    until(() -> activity().contains("\"position\":\"on\""));
    assertThat(activity()).contains("\"type\":\"control\"").contains("\"position\":\"off\"");

    RawMcp alice = new RawMcp(app.endpoint());
    alice.session.put("Authorization", ALICE);
    alice.initialize();
    String message = "audit-" + UUID.randomUUID();
    Map<String, String> lost = new LinkedHashMap<>(alice.session);
    lost.put(SdkApp.DROP_ANSWER, "1");
    alice.post(RawMcp.toolCall(SdkApp.CLOSE, message).toString(), lost);
    var retry = alice.call(RawMcp.toolCall(SdkApp.CLOSE, message));
    assertThat(retry.path("result").path("content").path(0).path("text").asText())
        .as(retry.toString())
        .isEqualTo("found ticket T-1 for " + message);
    until(() -> activity().contains("\"type\":\"status_lookup\""));
    assertThat(activity())
        .contains("\"answer\":\"completed\"")
        .contains("\"status_tool\":\"" + SdkApp.STATUS + "\"")
        .doesNotContain(message);
    assertThat(app.closes.get()).isOne();
    assertThat(
            AuditVerifier.create(Canonicalizer.jcs())
                .verify(dir.resolve("journal").resolve("audit"), Optional.empty())
                .bad())
        .isEmpty();
  }
}
