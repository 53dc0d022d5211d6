package dev.tally.sidecar.it;

import dev.tally.core.call.Admission;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.execution.RpcError;
import dev.tally.core.gate.Decision;
import dev.tally.core.gate.InFlight;
import dev.tally.core.gate.ToolCall;
import dev.tally.core.mcp.TallyCode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A transport-test double of the gate: matches calls by tool and arguments, dispatches the first,
 * attaches concurrent ones and replays completed ones. Reports complete on another thread, like a
 * real store. Records every report so tests can assert what the sidecar told the gate.
 */
final class FakeGate implements Admission {
  final ContractRegistry contracts = ContractRegistry.defaults();
  final AtomicInteger admitted = new AtomicInteger();
  final List<String> reports = new CopyOnWriteArrayList<>();
  final List<ToolCall> calls = new CopyOnWriteArrayList<>();
  final CompletableFuture<Void> firstSettled = new CompletableFuture<>();
  final CompletableFuture<Void> firstDelivered = new CompletableFuture<>();
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();

  private static final class Entry {
    final CompletableFuture<Decision> settled = new CompletableFuture<>();
    volatile Execution execution;
    volatile byte[] result;
  }

  @Override
  public CompletionStage<Decision> admit(ToolCall call) {
    calls.add(call);
    ToolContract contract = contracts.resolve(call.tool());
    admitted.incrementAndGet();
    if (contract.isReadOnly()) {
      return CompletableFuture.supplyAsync(() -> new Decision.PassThrough(contract));
    }
    String key = call.tool() + "|" + call.arguments();
    Entry fresh = new Entry();
    Entry e = entries.putIfAbsent(key, fresh);
    if (e == null) {
      fresh.execution = execution(call.tool(), ExecutionState.DISPATCHED);
      return CompletableFuture.supplyAsync(
          () -> new Decision.Dispatch(new Flight(fresh, contract)));
    }
    if (e.result != null) {
      return CompletableFuture.completedFuture(new Decision.Replay(e.execution, e.result));
    }
    if (e.settled.isDone()) {
      return e.settled;
    }
    return CompletableFuture.completedFuture(new Decision.Attach(e.execution, e.settled));
  }

  @Override
  public ContractRegistry contracts() {
    return contracts;
  }

  static Execution execution(String tool, ExecutionState state) {
    Instant now = Instant.now();
    return new Execution(
        ExecutionId.generate(Clock.systemUTC()),
        1,
        "key",
        MatchKind.FINGERPRINT,
        "actor",
        tool,
        ToolClass.IRREVERSIBLE,
        "hmac-sha256:k:00",
        Execution.WINDOW_SCOPE,
        state,
        Map.of(state, now),
        now.plus(Duration.ofMinutes(10)),
        now.plus(Duration.ofDays(1)),
        null,
        null,
        null,
        null,
        false,
        "");
  }

  private final class Flight implements InFlight {
    private final Entry entry;
    private final ToolContract contract;

    Flight(Entry entry, ToolContract contract) {
      this.entry = entry;
      this.contract = contract;
    }

    @Override
    public ExecutionId id() {
      return entry.execution.id();
    }

    @Override
    public Execution execution() {
      return entry.execution;
    }

    @Override
    public ToolContract contract() {
      return contract;
    }

    @Override
    public boolean continued() {
      return false;
    }

    private CompletionStage<Execution> move(String report, ExecutionState to, Runnable then) {
      return CompletableFuture.supplyAsync(
          () -> {
            reports.add(report);
            Execution next =
                new Execution(
                    entry.execution.id(),
                    entry.execution.version() + 1,
                    "key",
                    MatchKind.FINGERPRINT,
                    "actor",
                    entry.execution.tool(),
                    ToolClass.IRREVERSIBLE,
                    "hmac-sha256:k:00",
                    Execution.WINDOW_SCOPE,
                    to,
                    Map.of(to, Instant.now()),
                    entry.execution.holdUntil(),
                    entry.execution.retainUntil(),
                    null,
                    200,
                    null,
                    null,
                    false,
                    "");
            entry.execution = next;
            then.run();
            return next;
          });
    }

    @Override
    public CompletionStage<Execution> completed(int httpStatus, byte[] result, boolean isError) {
      return move(
          "completed:" + httpStatus,
          ExecutionState.COMPLETED,
          () -> {
            entry.result = result;
            entry.settled.complete(new Decision.Replay(entry.execution, result));
            firstSettled.complete(null);
          });
    }

    @Override
    public CompletionStage<Execution> rpcError(int httpStatus, RpcError error) {
      return move(
          "rpcError:" + error.code(), ExecutionState.COMPLETED, () -> firstSettled.complete(null));
    }

    @Override
    public CompletionStage<Execution> inputRequired(int httpStatus) {
      return move("inputRequired", ExecutionState.DISPATCHED, () -> {});
    }

    @Override
    public CompletionStage<Execution> failedBeforeEffect(int httpStatus, String reason) {
      return move(
          "failedBeforeEffect:" + httpStatus,
          ExecutionState.FAILED,
          () -> {
            entries.values().remove(entry);
            firstSettled.complete(null);
          });
    }

    @Override
    public CompletionStage<Execution> unknown(String reason) {
      return move(
          "unknown",
          ExecutionState.OUTCOME_UNKNOWN,
          () -> {
            entry.settled.complete(
                new Decision.Respond(TallyCode.OUTCOME_UNKNOWN, entry.execution));
            firstSettled.complete(null);
          });
    }

    @Override
    public CompletionStage<Execution> delivered() {
      return move("delivered", ExecutionState.DELIVERED, () -> firstDelivered.complete(null));
    }

    @Override
    public CompletionStage<Execution> notDelivered() {
      return move("notDelivered", ExecutionState.COMPLETED_NOT_DELIVERED, () -> {});
    }
  }
}
