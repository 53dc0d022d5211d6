package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.testing.MutableClock;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 18, "rules are evaluated again at confirm time: contract changed", through the servlet
 * filter and its admin servlet: a call made while the default contract required confirmation is
 * rejected with {@code CONTRACT_CHANGED} when, at confirm time, the tool's contract is another one
 * (the application now lists it read-only), never run, and the agent's retry gets the rejection.
 */
class FilterContractChangedIT {
  private static final String ALICE = "Bearer alice-filter-token-0123";
  private static final String ADMIN = "filter-admin-token-0123456789abcdef";

  private final HttpClient http = HttpClient.newHttpClient();
  private final MutableClock clock = MutableClock.at(Instant.now());
  private SdkApp app;

  @BeforeEach
  void start() throws Exception {
    TallyConfig config =
        TallyConfig.parse(
            "store: memory\n"
                + "confirmation:\n  url: https://app.example.com/tally\n"
                + "tools:\n  default:\n    confirmationRequired: true\n",
            "test",
            ConfigOverrides.none());
    app = SdkApp.withAdmin(config, ADMIN, clock);
  }

  @AfterEach
  void stop() throws Exception {
    app.close();
  }

  @Test
  void aConfirmAfterTheContractChangedIsRefusedAndTheRetryGetsTheRejection() throws Exception {
    RawMcp alice = new RawMcp(app.endpoint());
    alice.session.put("Authorization", ALICE);
    alice.initialize();
    String message = "changed-" + UUID.randomUUID();
    JsonNode first = alice.call(RawMcp.toolCall(SdkApp.WRITE, message));
    JsonNode sc = first.path("result").path("structuredContent");
    assertThat(sc.path("status").asText()).as(first.toString()).isEqualTo("pending_confirmation");
    String id = sc.path("actionId").asText();

    // The application's tools/list now says the tool is read-only: another contract.
    app.filter.gate().contracts().learnAnnotations(SdkApp.WRITE, true, null);
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(app.admin("/v1/actions/" + id + "/confirm"))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .header("Authorization", ALICE)
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(409);
    JsonNode body = RawMcp.JSON.readTree(r.body());
    assertThat(body.path("error").path("code").asText()).isEqualTo("CONTRACT_CHANGED");
    assertThat(body.path("execution").path("state").asText()).isEqualTo("rejected");
    assertThat(
            app.filter
                .gate()
                .store()
                .find(new ExecutionId(id))
                .toCompletableFuture()
                .join()
                .orElseThrow()
                .state())
        .isEqualTo(ExecutionState.REJECTED);

    app.filter.gate().contracts().learnAnnotations(SdkApp.WRITE, null, null);
    JsonNode retry = alice.call(RawMcp.toolCall(SdkApp.WRITE, message));
    assertThat(retry.toString()).as("the decision, never a new approval").contains("REJECTED");
    assertThat(retry.path("result").path("structuredContent").path("status").asText())
        .isNotEqualTo("pending_confirmation");
    assertThat(app.writes.get()).as("nothing ran").isZero();
  }
}
