package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.gate.Confirmations;
import dev.tally.core.mcp.Headers;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 18 through the servlet filter in front of the MCP Java SDK in Jetty: the same engine as the
 * sidecar answers the pending result, keeps a decision for the retry, and hides writes as unknown
 * tools. Here the decision goes through {@link Confirmations#authorize} (for code that cannot run
 * the call itself): the agent's retry then runs it under the same execution id. The user-facing
 * way, {@link TallyAdminServlet}, runs it at once ({@code FilterConfirmExecutesIT}).
 */
class FilterConfirmationIT {
  private static final String ALICE = "Bearer alice-filter-token-0123";
  private static final String BOB = "Bearer bob-filter-token-0123";

  private SdkApp app;

  @BeforeEach
  void start() throws Exception {
    TallyConfig config =
        TallyConfig.parse(
            "store: memory\n"
                + "confirmation:\n  url: https://tally.example.com\n"
                + "tools:\n  "
                + SdkApp.WRITE
                + ":\n    confirmationRequired: true\n  "
                + SdkApp.READ
                + ":\n    class: read_only\n",
            "test",
            ConfigOverrides.none());
    app = SdkApp.withConfiguredFilter(config);
  }

  @AfterEach
  void stop() throws Exception {
    app.close();
  }

  private RawMcp as(String authorization) throws Exception {
    RawMcp raw = new RawMcp(app.endpoint());
    raw.session.put("Authorization", authorization);
    return raw.initialize();
  }

  private Confirmations confirmations() {
    return app.filter.gate().confirmations();
  }

  private static Headers credential(String authorization) {
    return n -> n.equalsIgnoreCase("Authorization") ? authorization : null;
  }

  @Test
  void aCallNeedingConfirmationGetsThePendingResultAndItsRetryTheSame() throws Exception {
    RawMcp alice = as(ALICE);
    String message = "pending-" + UUID.randomUUID();
    JsonNode first = alice.call(RawMcp.toolCall(SdkApp.WRITE, message));
    JsonNode sc = first.path("result").path("structuredContent");
    assertThat(first.path("result").path("isError").asBoolean(true)).as(first.toString()).isFalse();
    assertThat(sc.path("status").asText()).isEqualTo("pending_confirmation");
    String id = sc.path("actionId").asText();
    assertThat(sc.path("confirmUrl").asText())
        .isEqualTo("https://tally.example.com/console/actions/" + id);
    assertThat(sc.path("preview").path("arguments").path("message").asText()).isEqualTo(message);
    JsonNode again = alice.call(RawMcp.toolCall(SdkApp.WRITE, message));
    assertThat(again.path("result").path("structuredContent").path("actionId").asText())
        .isEqualTo(id);
    assertThat(app.writes.get()).isZero();

    Confirmations.Outcome other =
        confirmations()
            .authorize(new ExecutionId(id), credential(BOB))
            .toCompletableFuture()
            .join();
    assertThat(other).isInstanceOf(Confirmations.NotPending.class);
    Confirmations.Outcome ok =
        confirmations()
            .authorize(new ExecutionId(id), credential(ALICE))
            .toCompletableFuture()
            .join();
    assertThat(ok).isInstanceOf(Confirmations.Authorized.class);
    JsonNode run = alice.call(RawMcp.toolCall(SdkApp.WRITE, message));
    assertThat(run.path("result").path("isError").asBoolean(true)).as(run.toString()).isFalse();
    assertThat(app.writes.get()).isOne();
    assertThat(app.seen.peek()).as("the same execution id upstream").contains(id);
    alice.call(RawMcp.toolCall(SdkApp.WRITE, message));
    assertThat(app.writes.get()).as("never twice").isOne();
  }

  @Test
  void aCancelledCallsRetryGetsTheCancellationNotANewPending() throws Exception {
    RawMcp alice = as(ALICE);
    String message = "cancel-" + UUID.randomUUID();
    String id =
        alice
            .call(RawMcp.toolCall(SdkApp.WRITE, message))
            .path("result")
            .path("structuredContent")
            .path("actionId")
            .asText();
    assertThat(
            confirmations()
                .cancel(new ExecutionId(id), credential(ALICE))
                .toCompletableFuture()
                .join())
        .isInstanceOf(Confirmations.Cancelled.class);
    JsonNode retry = alice.call(RawMcp.toolCall(SdkApp.WRITE, message));
    JsonNode tally = retry.path("result").path("structuredContent").path("tally");
    assertThat(tally.path("code").asText())
        .as(retry.toString())
        .isEqualTo("CONFIRMATION_CANCELLED");
    assertThat(tally.path("executionId").asText()).isEqualTo(id);
    assertThat(app.writes.get()).isZero();
  }

  @Test
  void aHiddenWriteIsAnUnknownToolWhileReadsStillWork() throws Exception {
    RawMcp alice = as(ALICE);
    app.filter.gate().writes().writeSwitch().setGlobal(false);
    JsonNode hidden = alice.call(RawMcp.toolCall(SdkApp.WRITE, "hidden-" + UUID.randomUUID()));
    assertThat(hidden.path("error").path("code").asInt()).as(hidden.toString()).isEqualTo(-32602);
    assertThat(hidden.path("error").path("message").asText())
        .isEqualTo("Unknown tool: " + SdkApp.WRITE);
    assertThat(hidden.path("error").has("data")).isFalse();
    assertThat(
            app.filter
                .gate()
                .store()
                .list(new dev.tally.core.store.ExecutionQuery(null, SdkApp.WRITE, null, null, 10))
                .toCompletableFuture()
                .join()
                .items())
        .as("nothing was recorded")
        .isEmpty();
    JsonNode read = alice.call(RawMcp.toolCall(SdkApp.READ, "r"));
    assertThat(read.path("result").path("content").path(0).path("text").asText())
        .startsWith("read #");
    assertThat(app.reachedServlet.get()).isPositive();
    assertThat(List.of(app.writes.get())).containsExactly(0);
  }
}
