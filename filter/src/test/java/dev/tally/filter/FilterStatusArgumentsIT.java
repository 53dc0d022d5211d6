package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 18, status tools with contract-mapped arguments, through the servlet filter in front of the
 * MCP Java SDK's servlet transport: after an unknown outcome the retry makes Tally call the status
 * tool with the execution id under {@code statusExecutionIdArgument} and the original call's
 * argument at the mapped pointer (taken from the retry); a pointer the call lacks means no lookup
 * and {@code OUTCOME_UNKNOWN}.
 */
class FilterStatusArgumentsIT {
  private static final String ALICE = "Bearer alice-filter-token-0123";
  private static final String ADMIN = "filter-admin-token-0123456789abcdef";

  private final MutableClock clock = MutableClock.at(Instant.now());
  private SdkApp app;

  private void start(String pointer) throws Exception {
    TallyConfig config =
        TallyConfig.parse(
            "store: memory\n"
                + "tools:\n  "
                + SdkApp.CLOSE
                + ":\n    class: status_check\n    statusTool: "
                + SdkApp.STATUS
                + "\n    statusExecutionIdArgument: operation\n"
                + "    statusArguments: {about: "
                + pointer
                + "}\n",
            "test",
            ConfigOverrides.none());
    app = SdkApp.withAdmin(config, ADMIN, clock);
  }

  @AfterEach
  void stop() throws Exception {
    if (app != null) {
      app.close();
    }
  }

  /** Runs close_ticket with {@code message} and loses its answer: an unknown outcome. */
  private String unknownOutcome(RawMcp alice, String message) throws Exception {
    Map<String, String> lost = new java.util.LinkedHashMap<>(alice.session);
    lost.put(SdkApp.DROP_ANSWER, "1");
    alice.post(RawMcp.toolCall(SdkApp.CLOSE, message).toString(), lost);
    var items =
        app.filter
            .gate()
            .store()
            .list(new dev.tally.core.store.ExecutionQuery(null, SdkApp.CLOSE, null, null, 10))
            .toCompletableFuture()
            .join()
            .items();
    assertThat(items).hasSize(1);
    String id = items.get(0).id().value();
    long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
    Execution e = items.get(0);
    while (e.state() != ExecutionState.OUTCOME_UNKNOWN && System.nanoTime() < deadline) {
      Thread.sleep(50);
      e = app.filter.gate().store().find(e.id()).toCompletableFuture().join().orElseThrow();
    }
    assertThat(e.state()).isEqualTo(ExecutionState.OUTCOME_UNKNOWN);
    return id;
  }

  private RawMcp alice() throws Exception {
    RawMcp raw = new RawMcp(app.endpoint());
    raw.session.put("Authorization", ALICE);
    return raw.initialize();
  }

  @Test
  void theStatusToolGetsTheExecutionIdAndTheMappedArgumentOfTheCall() throws Exception {
    start("/message");
    RawMcp alice = alice();
    String message = "mapped-" + UUID.randomUUID();
    String id = unknownOutcome(alice, message);

    JsonNode retry = alice.call(RawMcp.toolCall(SdkApp.CLOSE, message));
    assertThat(retry.path("result").path("content").path(0).path("text").asText())
        .as(retry.toString())
        .isEqualTo("found ticket T-1 for " + message);
    assertThat(app.statusArguments).containsExactly(Map.of("operation", id, "about", message));
    assertThat(app.closes.get()).as("nothing ran twice").isOne();
  }

  @Test
  void aPointerTheCallLacksMeansNoLookupAndOutcomeUnknown() throws Exception {
    start("/ticket/number");
    RawMcp alice = alice();
    String message = "unmapped-" + UUID.randomUUID();
    unknownOutcome(alice, message);

    JsonNode retry = alice.call(RawMcp.toolCall(SdkApp.CLOSE, message));
    assertThat(retry.toString()).as("the retry is told").contains("OUTCOME_UNKNOWN");
    assertThat(app.statusArguments).as("no lookup").isEmpty();
    assertThat(app.closes.get()).isOne();
  }
}
