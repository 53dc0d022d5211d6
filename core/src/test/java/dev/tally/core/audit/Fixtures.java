package dev.tally.core.audit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.execution.RpcError;
import dev.tally.core.execution.Transition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Executions, options and journals for the audit tests. */
final class Fixtures {
  static final Instant T0 = Instant.parse("2025-06-01T12:00:00Z");
  private static final Random RANDOM = new Random(42);

  private Fixtures() {}

  static AuditOptions options(InstantSource clock) {
    return AuditOptions.defaults()
        .withClock(clock)
        .withCanonicalizer(Canonicalizer.jcs())
        .withTarget("billing-api");
  }

  static AuditVerifier verifier() {
    return AuditVerifier.create(Canonicalizer.jcs());
  }

  static Execution accepted(String actor, String tool, String fingerprint, Instant at) {
    return new Execution(
        ExecutionId.generate(InstantSource.fixed(at), RANDOM),
        1,
        "fp:" + fingerprint,
        MatchKind.FINGERPRINT,
        actor,
        tool,
        ToolClass.IRREVERSIBLE,
        fingerprint,
        Execution.WINDOW_SCOPE,
        ExecutionState.ACCEPTED,
        Map.of(ExecutionState.ACCEPTED, at),
        at.plus(Duration.ofMinutes(10)),
        at.plus(Duration.ofDays(1)),
        null,
        null,
        null,
        null,
        false,
        "{amount:number,currency:string}");
  }

  /**
   * Moves {@code e} to {@code to} at {@code at}, reports it to {@code sink}, returns the result.
   */
  static Execution step(AuditSink sink, Execution e, ExecutionState to, Instant at) {
    return step(sink, e, Transition.to(e, to, at));
  }

  static Execution step(AuditSink sink, Execution e, Transition t) {
    Execution next = e.apply(t);
    sink.transition(e, next);
    return next;
  }

  /**
   * Records one execution from acceptance to {@code delivered} (or {@code
   * completed_not_delivered}): six entries.
   */
  static Execution happyPath(AuditSink sink, Execution created, boolean delivered) {
    sink.transition(null, created);
    Instant t = created.at(ExecutionState.ACCEPTED);
    Execution e = step(sink, created, ExecutionState.AUTHORIZED, t.plusMillis(3));
    e =
        step(
            sink,
            e,
            Transition.to(e, ExecutionState.DISPATCHED, t.plusMillis(5))
                .withLease(new Lease("sidecar-1", t.plusSeconds(30))));
    e =
        step(
            sink,
            e,
            Transition.to(e, ExecutionState.COMPLETED, t.plusMillis(250))
                .withOutcome(200, null)
                .withResult("{\"content\":[]}".getBytes(StandardCharsets.UTF_8), false)
                .clearingLease());
    return step(
        sink,
        e,
        delivered ? ExecutionState.DELIVERED : ExecutionState.COMPLETED_NOT_DELIVERED,
        t.plusMillis(260));
  }

  /** A failed dispatch: four entries. */
  static Execution failedPath(AuditSink sink, Execution created) {
    sink.transition(null, created);
    Instant t = created.at(ExecutionState.ACCEPTED);
    Execution e = step(sink, created, ExecutionState.AUTHORIZED, t.plusMillis(3));
    e = step(sink, e, ExecutionState.DISPATCHED, t.plusMillis(5));
    return step(
        sink,
        e,
        Transition.to(e, ExecutionState.FAILED, t.plusMillis(40))
            .withOutcome(502, new RpcError(-32603, "upstream down")));
  }

  /** The lines of a file (without newlines), as byte arrays. */
  static List<byte[]> lines(byte[] file) {
    List<byte[]> out = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < file.length; i++) {
      if (file[i] == '\n') {
        out.add(java.util.Arrays.copyOfRange(file, start, i));
        start = i + 1;
      }
    }
    if (start < file.length) {
      out.add(java.util.Arrays.copyOfRange(file, start, file.length));
    }
    return out;
  }

  static byte[] join(List<byte[]> lines) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (byte[] l : lines) {
      out.writeBytes(l);
      out.write('\n');
    }
    return out.toByteArray();
  }

  /**
   * The line of {@code entry} (which has {@code v}, {@code seq} and {@code prev} but no hash),
   * without the newline, as any writer of the format writes it: canonical form by the test
   * canonicalizer, hash over {@code prev}.
   */
  static byte[] line(ObjectNode entry, String prev) {
    byte[] canonical = Canonicalizer.jcs().canonicalize(entry);
    return EntryCodec.line(canonical, EntryCodec.hash(prev, canonical));
  }

  static Path activity(Path dir) {
    return dir.resolve(AuditFiles.ACTIVITY);
  }
}
