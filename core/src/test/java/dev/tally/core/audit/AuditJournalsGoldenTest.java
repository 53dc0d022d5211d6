package dev.tally.core.audit;

import static dev.tally.core.audit.Fixtures.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.contract.ToolClass;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.execution.RpcError;
import dev.tally.core.execution.Transition;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Journal bytes are a persisted format: a fixed sequence of reports under a fixed clock and key
 * writes exactly the committed {@code golden/*.jsonl}, which the writer before {@link FlatEntry} (a
 * Jackson tree per entry, canonicalized by {@code FlatCanonicalizer} or the general canonicalizer)
 * produced. A writer change that alters one byte of a new line fails here.
 */
class AuditJournalsGoldenTest {
  /** A test key (seed 0, 1, …, 31), not a secret. */
  private static final byte[] SEED = new byte[32];

  static {
    for (int i = 0; i < SEED.length; i++) {
      SEED[i] = (byte) i;
    }
  }

  @TempDir Path dir;

  @Test
  void aFixedSequenceWritesTheGoldenJournals() throws IOException {
    write(dir);

    assertSameBytes(dir.resolve(AuditFiles.ACTIVITY), "golden/activity.jsonl");
    assertSameBytes(dir.resolve(AuditFiles.SESSIONS), "golden/sessions.jsonl");
    AuditVerification v = AuditVerifier.create(Canonicalizer.jcs()).verify(dir, Optional.empty());
    assertThat(v.outcome()).isEqualTo(AuditVerification.Outcome.OK);
  }

  private void assertSameBytes(Path written, String resource) throws IOException {
    byte[] actual = Files.readAllBytes(written);
    byte[] expected;
    try (InputStream in = getClass().getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      expected = in.readAllBytes();
    }
    assertThat(new String(actual, StandardCharsets.UTF_8))
        .isEqualTo(new String(expected, StandardCharsets.UTF_8));
    assertThat(actual).isEqualTo(expected);
  }

  /** Writes the fixed sequence into {@code dir}: 3 executions, retries, sessions, checkpoints. */
  static void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    writeKey(dir.resolve(AuditFiles.SIGNING_KEY));
    MutableClock clock = new MutableClock(T0);
    AuditOptions options =
        AuditOptions.defaults()
            .withClock(clock)
            .withCanonicalizer(Canonicalizer.jcs())
            .withCheckpointEvery(7)
            .withTarget("billing \"eu\" api \\ é");
    Random random = new Random(20251130);
    SessionRef run = SessionRef.run("run-7 \"quoted\" ü");
    SessionRef mcp = SessionRef.mcpSession("mcp-session-id-1");
    try (AuditJournals j = AuditJournals.open(dir, options)) {
      j.session(new SessionSeen(run, "alice", "agent \"x\"", "1.0", "2025-06-18", T0));

      // A delivered call with every optional field of the happy path.
      Execution a =
          execution(
              random,
              "alice",
              "refund",
              MatchKind.FINGERPRINT,
              ToolClass.IRREVERSIBLE,
              Execution.WINDOW_SCOPE,
              "{amount:number,currency:string}",
              T0);
      j.transition(null, a, run);
      a = step(j, a, Transition.to(a, ExecutionState.AUTHORIZED, T0.plusMillis(3)), run);
      a =
          step(
              j,
              a,
              Transition.to(a, ExecutionState.DISPATCHED, T0.plusMillis(5))
                  .withLease(new Lease("sidecar-1", T0.plusSeconds(30))),
              run);
      a =
          step(
              j,
              a,
              Transition.to(a, ExecutionState.COMPLETED, T0.plusMillis(250))
                  .withOutcome(200, null)
                  .withResult("{\"content\":[]}".getBytes(StandardCharsets.UTF_8), false)
                  .clearingLease(),
              run);
      a = step(j, a, Transition.to(a, ExecutionState.DELIVERED, T0.plusMillis(260)), null);
      // The outcomes the golden was written with; later ones (issue 18: cancelled, expired) are
      // written the same way and must not change the committed bytes.
      for (RetryOutcome o :
          java.util.EnumSet.range(RetryOutcome.ATTACHED, RetryOutcome.KEY_REUSED)) {
        j.retry(a, o, o.ordinal() % 2 == 0 ? mcp : null, T0.plusSeconds(1 + o.ordinal()));
      }

      // Names and a summary with quotes, backslashes, multi-byte and supplementary characters,
      // a control character (cleaned to U+FFFD) and a summary longer than its bound (cut).
      clock.advance(Duration.ofSeconds(2));
      Instant t1 = T0.plusSeconds(2);
      j.session(new SessionSeen(mcp, "Zoë \"z\" \\ 東京 😂\u0007", null, null, "2025-11-25", t1));
      Execution b =
          execution(
              random,
              "Zoë \"z\" \\ 東京 😂\u0007",
              "create_ticket/\u00a0€",
              MatchKind.IDEMPOTENCY_KEY,
              ToolClass.KEYED,
              "run:run-7",
              "{title:string,\"q\":\\,note:" + "é😂x".repeat(400) + "}",
              t1);
      j.transition(null, b, mcp);
      b = step(j, b, Transition.to(b, ExecutionState.DISPATCHED, t1.plusMillis(1)), mcp);
      b =
          step(
              j,
              b,
              Transition.to(b, ExecutionState.FAILED, t1.plusMillis(40))
                  .withOutcome(502, new RpcError(-32603, "upstream down")),
              mcp);

      // A re-dispatch under a new owner after an unknown outcome; an MRTR input request.
      j.session(new SessionSeen(run, "alice", "agent \"x\"", "1.1", "2025-06-18", t1));
      Execution c =
          execution(
              random,
              "bob",
              "lookup",
              MatchKind.FINGERPRINT,
              ToolClass.STATUS_CHECK,
              Execution.WINDOW_SCOPE,
              "",
              t1.plusMillis(100));
      j.transition(null, c, null);
      c =
          step(
              j,
              c,
              Transition.to(c, ExecutionState.DISPATCHED, t1.plusMillis(101))
                  .withLease(new Lease("sidecar-1", t1.plusSeconds(30))),
              null);
      c = step(j, c, Transition.to(c, ExecutionState.OUTCOME_UNKNOWN, t1.plusMillis(900)), null);
      c =
          step(
              j,
              c,
              Transition.to(c, ExecutionState.DISPATCHED, t1.plusMillis(950))
                  .withLease(new Lease("sidecar-2", t1.plusSeconds(31))),
              null);
      c =
          step(
              j,
              c,
              Transition.to(c, ExecutionState.COMPLETED, t1.plusMillis(990))
                  .withOutcome(200, null)
                  .withResult("{\"isError\":true}".getBytes(StandardCharsets.UTF_8), true)
                  .awaitingInput(true)
                  .clearingLease(),
              null);

      // The oldest unsigned entry ages past the checkpoint interval; a session is seen again
      // after the update interval; close signs the rest and drains sessions seen since.
      clock.advance(Duration.ofMinutes(6));
      Instant t2 = clock.instant();
      c = step(j, c, Transition.to(c, ExecutionState.COMPLETED_NOT_DELIVERED, t2), null);
      j.session(SessionSeen.of(run, "alice", t2));
      j.session(SessionSeen.of(mcp, "Zoë \"z\" \\ 東京 😂\u0007", t2.plusSeconds(1)));
      j.retry(c, RetryOutcome.REPLAYED, run, t2.plusSeconds(2));
      j.checkpointIfDue();
    }
  }

  private static Execution step(AuditSink sink, Execution e, Transition t, SessionRef session) {
    Execution next = e.apply(t);
    sink.transition(e, next, session);
    return next;
  }

  private static Execution execution(
      Random random,
      String actor,
      String tool,
      MatchKind match,
      ToolClass toolClass,
      String scope,
      String summary,
      Instant at) {
    return new Execution(
        ExecutionId.generate(InstantSource.fixed(at), random),
        1,
        "k:" + actor,
        match,
        actor,
        tool,
        toolClass,
        "hmac-sha256:k1:" + Long.toHexString(random.nextLong()),
        scope,
        ExecutionState.ACCEPTED,
        Map.of(ExecutionState.ACCEPTED, at),
        at.plus(Duration.ofMinutes(10)),
        at.plus(Duration.ofDays(1)),
        null,
        null,
        null,
        null,
        false,
        summary);
  }

  private static void writeKey(Path file) throws IOException {
    byte[] pub = new Ed25519PrivateKeyParameters(SEED, 0).generatePublicKey().getEncoded();
    String line =
        SigningKey.TAG
            + " "
            + AuditPublicKey.ALGORITHM
            + " "
            + AuditPublicKey.of(pub).keyId()
            + " "
            + Base64.getEncoder().encodeToString(SEED)
            + " "
            + Base64.getEncoder().encodeToString(pub)
            + "\n";
    FileOps.createAtomically(file, line.getBytes(StandardCharsets.US_ASCII), FileOps.OWNER_ONLY);
  }
}
