package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.Claim;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.ForwardingExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The filter on a slow store (issue 22, case 8): a claim that lands after the filter stopped
 * waiting never blocks retries as if it had run, and an answer reaches the client only once its
 * outcome is durable.
 */
class FilterDurabilityIT {
  private final StallingStore store = new StallingStore(MemoryExecutionStore.create());
  private SdkApp app;

  @AfterEach
  void stop() throws Exception {
    store.releaseAll();
    if (app != null) {
      app.close();
    }
  }

  private void start(String toolsYaml) throws Exception {
    TallyConfig cfg = TallyConfig.parse(toolsYaml, "test configuration", ConfigOverrides.none());
    TallyFilter filter =
        TallyFilter.builder()
            .config(cfg)
            .settings(FilterSettings.defaults())
            .store(store)
            .keys(SdkApp.keys())
            .build();
    app = SdkApp.withFilter(store, filter);
  }

  @Test
  void aClaimLandingAfterTheFilterGaveUpIsSettledFailedAndTheRetryRuns() throws Exception {
    start("tools:\n  " + SdkApp.WRITE + ":\n    attachWait: 0s\n");
    RawMcp raw = new RawMcp(app.endpoint()).initialize();
    String message = "late-claim-" + UUID.randomUUID();
    store.stallClaims();

    JsonNode refused = raw.call(RawMcp.toolCall(SdkApp.WRITE, message));
    assertThat(refused.toString()).contains("STORE_UNAVAILABLE").contains("nothing was sent");
    store.releaseClaims(); // the slow pool finally writes the claim

    Execution late = awaitOnly(ExecutionState.FAILED);
    assertThat(late.lease()).isNull();
    assertThat(app.writes.get()).as("the app never ran").isZero();

    JsonNode retry = raw.call(RawMcp.toolCall(SdkApp.WRITE, message));
    assertThat(retry.path("result").path("content").path(0).path("text").asText())
        .isEqualTo("ticket T-1 for " + message);
    assertThat(app.writes.get()).isOne();
  }

  @Test
  void theAnswerWaitsUntilItsOutcomeIsDurable() throws Exception {
    start("");
    RawMcp raw = new RawMcp(app.endpoint()).initialize();
    String message = "durable-" + UUID.randomUUID();
    store.stallCompletions();

    CompletableFuture<HttpResponse<String>> answer =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return raw.post(RawMcp.toolCall(SdkApp.WRITE, message).toString(), raw.session);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    until(Duration.ofSeconds(20), () -> store.completionsWaiting() == 1);
    assertThat(app.writes.get()).isOne();
    try {
      HttpResponse<String> early = answer.get(1, TimeUnit.SECONDS);
      throw new AssertionError("answered before the outcome was durable: " + early.body());
    } catch (TimeoutException expected) {
      // the answer is held back while completed is not recorded
    }

    store.releaseCompletions();
    JsonNode reply = RawMcp.responseOf(answer.get(20, TimeUnit.SECONDS));
    assertThat(reply.path("result").path("content").path(0).path("text").asText())
        .isEqualTo("ticket T-1 for " + message);
    assertThat(only().state()).isIn(ExecutionState.COMPLETED, ExecutionState.DELIVERED);
  }

  private Execution awaitOnly(ExecutionState state) throws InterruptedException {
    until(
        Duration.ofSeconds(20),
        () -> {
          List<Execution> all = all();
          return all.size() == 1 && all.get(0).state() == state;
        });
    return only();
  }

  /** Waits (polling) until {@code condition} holds, at most {@code max}. */
  private static void until(Duration max, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not within " + max);
      }
      Thread.sleep(5);
    }
  }

  private List<Execution> all() {
    return store
        .delegate()
        .list(new ExecutionQuery(null, SdkApp.WRITE, null, null, 100))
        .toCompletableFuture()
        .join()
        .items();
  }

  private Execution only() {
    List<Execution> all = all();
    assertThat(all).hasSize(1);
    return all.get(0);
  }

  /** Holds claims or completions until the test lets them through, as a slow pool would. */
  static final class StallingStore extends ForwardingExecutionStore {
    private volatile CompletableFuture<Void> claims = CompletableFuture.completedFuture(null);
    private volatile CompletableFuture<Void> completions = CompletableFuture.completedFuture(null);
    private final java.util.concurrent.atomic.AtomicInteger waiting =
        new java.util.concurrent.atomic.AtomicInteger();

    StallingStore(ExecutionStore delegate) {
      super(delegate);
    }

    void stallClaims() {
      claims = new CompletableFuture<>();
    }

    void releaseClaims() {
      claims.complete(null);
    }

    void stallCompletions() {
      completions = new CompletableFuture<>();
    }

    void releaseCompletions() {
      completions.complete(null);
    }

    void releaseAll() {
      releaseClaims();
      releaseCompletions();
    }

    int completionsWaiting() {
      return waiting.get();
    }

    @Override
    public CompletionStage<Claim> claim(Execution candidate, Instant now) {
      return claims.thenCompose(v -> super.claim(candidate, now));
    }

    @Override
    public CompletionStage<Execution> transition(Transition t) {
      if (t.to() != ExecutionState.COMPLETED) {
        return super.transition(t);
      }
      CompletableFuture<Void> gate = completions;
      if (!gate.isDone()) {
        waiting.incrementAndGet();
      }
      return gate.thenCompose(v -> super.transition(t));
    }
  }
}
