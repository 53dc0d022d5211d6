package dev.tally.core.call;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.RpcError;
import dev.tally.core.gate.InFlight;
import dev.tally.core.mcp.TallyError;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class DispatchRecorderTest {
  /** What the recorder reported, by method name. */
  private final List<String> reported = new CopyOnWriteArrayList<>();

  private final InFlight inFlight =
      new InFlight() {
        @Override
        public ExecutionId id() {
          return null;
        }

        @Override
        public Execution execution() {
          return null;
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
    TallyError told = recorder.cancelled();

    assertThat(told).isSameAs(DispatchRecorder.CANCELLED);
    assertThat(told.code()).isEqualTo(TallyError.Code.UPSTREAM_UNAVAILABLE);
    assertThat(reported).containsExactly("unknown: cancelled by its client before an answer");
    assertThat(recorder.settled()).isTrue();
    assertThat(recorder.timedOut()).as("settled once").isNull();
    assertThat(recorder.ended()).isNull();
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
