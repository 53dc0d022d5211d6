package dev.tally.core.call;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.RpcError;
import dev.tally.core.gate.InFlight;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class DispatchRecorderTest {
  private static final Execution EXECUTION = dispatched();

  private static Execution dispatched() {
    dev.tally.core.testing.MutableClock clock = dev.tally.core.testing.MutableClock.create();
    Execution accepted = dev.tally.core.testing.Executions.candidate(clock).build();
    return accepted.apply(
        dev.tally.core.execution.Transition.to(
            accepted, dev.tally.core.execution.ExecutionState.DISPATCHED, clock.instant()));
  }

  /** What the recorder reported, by method name. */
  private final List<String> reported = new CopyOnWriteArrayList<>();

  private final InFlight inFlight =
      new InFlight() {
        @Override
        public ExecutionId id() {
          return EXECUTION.id();
        }

        @Override
        public Execution execution() {
          return EXECUTION;
        }

        @Override
        public ToolContract contract() {
          return ToolContract.defaultFor("t");
        }

        @Override
        public boolean continued() {
          return false;
        }

        @Override
        public CompletionStage<Execution> completed(int s, byte[] r, boolean e) {
          reported.add("completed");
          return CompletableFuture.failedFuture(new IllegalStateException("not stored"));
        }

        @Override
        public CompletionStage<Execution> rpcError(int s, RpcError e) {
          reported.add("rpcError");
          return CompletableFuture.failedFuture(new IllegalStateException("not stored"));
        }

        @Override
        public CompletionStage<Execution> inputRequired(int s) {
          reported.add("inputRequired");
          return CompletableFuture.failedFuture(new IllegalStateException("not stored"));
        }

        @Override
        public CompletionStage<Execution> failedBeforeEffect(int s, String reason) {
          reported.add("failedBeforeEffect");
          return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Execution> unknown(String reason) {
          reported.add("unknown: " + reason);
          return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Execution> delivered() {
          return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Execution> notDelivered() {
          return CompletableFuture.completedFuture(null);
        }
      };

  private final DispatchRecorder recorder =
      DispatchRecorder.of(inFlight, JsonNodeFactory.instance.numberNode(4));

  @Test
  void aCancelledCallWithoutAnAnswerIsUnknownAtOnce() {
    CallReply told = recorder.cancelled();

    // The truth at once, as the tool result a retry gets (an SDK returns it rather than throws).
    assertThat(told).isInstanceOf(CallReply.Answer.class);
    com.fasterxml.jackson.databind.JsonNode answer = json(((CallReply.Answer) told).message());
    assertThat(answer.path("id").asInt()).isEqualTo(4);
    assertThat(answer.at("/result/isError").asBoolean()).isTrue();
    assertThat(answer.at("/result/structuredContent/tally/code").asText())
        .isEqualTo("OUTCOME_UNKNOWN");
    assertThat(answer.at("/result/structuredContent/tally/state").asText())
        .isEqualTo("outcome_unknown");
    assertThat(answer.at("/result/structuredContent/tally/retryable").asBoolean()).isFalse();
    assertThat(reported).containsExactly("unknown: cancelled by its client before an answer");
    assertThat(recorder.settled()).isTrue();
    assertThat(recorder.timedOut()).as("settled once").isNull();
    assertThat(recorder.ended()).isNull();
  }

  @Test
  void anUnreachableUpstreamIsARefusalNothingWasSent() {
    CallReply.Refusal told = recorder.unreachable();

    assertThat(told.error()).isSameAs(DispatchRecorder.UNREACHABLE);
    assertThat(told.httpStatus()).isEqualTo(502);
    assertThat(reported).containsExactly("failedBeforeEffect");
  }

  @Test
  void aKeyedToolsUnknownOutcomeSaysTheRetryIsSafe() {
    byte[] b =
        dev.tally.core.mcp.ToolResults.unknownOutcome(
            JsonNodeFactory.instance.numberNode(9),
            EXECUTION,
            ToolContract.of(
                "t", dev.tally.core.contract.ToolClass.KEYED, ToolContract.Source.CONFIGURATION));
    com.fasterxml.jackson.databind.JsonNode answer = json(b);
    assertThat(answer.at("/result/structuredContent/tally/code").asText())
        .isEqualTo("OUTCOME_UNKNOWN");
    assertThat(answer.at("/result/structuredContent/tally/retryable").asBoolean()).isTrue();
    assertThat(answer.at("/result/structuredContent/tally/next").asText())
        .isEqualTo(dev.tally.core.mcp.ToolResults.REDISPATCH_NEXT);
  }

  private static com.fasterxml.jackson.databind.JsonNode json(byte[] b) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().readTree(b);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void anAnswerBeforeTheCancellationStands() {
    recorder.head(200);
    assertThat(
            recorder.message(
                "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"content\":[]}}"
                    .getBytes(StandardCharsets.UTF_8)))
        .isNotNull();

    assertThat(recorder.cancelled()).isNull();
    assertThat(reported).containsExactly("completed");
  }
}
