package dev.tally.core.audit;

import static dev.tally.core.audit.Fixtures.T0;
import static dev.tally.core.audit.Fixtures.accepted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditTimelineTest {
  @TempDir Path dir;
  Execution lostResponse;
  Execution earlierFailure;
  Execution rejected;

  /**
   * An incident: a first refund failed upstream; a second attempt completed but its response was
   * lost; the agent retried from another session and got the result replayed; another actor's call
   * was rejected.
   */
  @BeforeEach
  void writeIncident() {
    MutableClock clock = new MutableClock(T0);
    SessionRef first = SessionRef.mcpSession("session-one");
    SessionRef second = SessionRef.mcpSession("session-two");
    try (AuditJournals j = AuditJournals.open(dir, Fixtures.options(clock))) {
      j.session(new SessionSeen(first, "alice", "claude-code", "1.0.3", "2025-06-18", T0));
      earlierFailure = Fixtures.failedPath(j, accepted("alice", "refund", "hmac-sha256:k1:aa", T0));
      lostResponse =
          Fixtures.happyPath(
              j, accepted("alice", "refund", "hmac-sha256:k1:aa", T0.plusSeconds(2)), false);
      j.session(new SessionSeen(second, "alice", "claude-code", "1.0.3", null, T0.plusSeconds(9)));
      j.retry(lostResponse, RetryOutcome.REPLAYED, second, T0.plusSeconds(9));
      Fixtures.step(j, lostResponse, ExecutionState.DELIVERED, T0.plusSeconds(9).plusMillis(1));
      Execution r = accepted("mallory", "delete_account", "hmac-sha256:k1:bb", T0.plusSeconds(3));
      j.transition(null, r);
      rejected = Fixtures.step(j, r, ExecutionState.REJECTED, T0.plusSeconds(3).plusMillis(1));
    }
  }

  @Test
  void overviewHasOneLinePerExecution() {
    String out = AuditTimeline.render(dir, Optional.empty());
    assertThat(out)
        .startsWith("3 executions (first seen, id, tool, actor, last state):\n")
        .contains(
            AuditTimeline.columnTime(T0)
                + "  "
                + earlierFailure.id()
                + "  refund  alice  failed  HTTP 502  JSON-RPC error"
                + " -32603  [fingerprint shared by 2 executions]\n")
        .contains(
            AuditTimeline.columnTime(T0.plusSeconds(2))
                + "  "
                + lostResponse.id()
                + "  refund  alice  delivered  HTTP 200  1 retry  [fingerprint shared by 2"
                + " executions]\n")
        .contains(rejected.id() + "  delete_account  mallory  rejected\n");
  }

  @Test
  void timelineOfTheLostResponseAnswersTheIncidentQuestions() {
    String out = AuditTimeline.render(dir, Optional.of(lostResponse.id().value()));
    assertThat(out)
        .startsWith("Execution " + lostResponse.id() + "\n")
        .contains("  tool              refund (class irreversible)\n")
        .contains("  target            billing-api\n")
        .contains("  arguments         {amount:number,currency:string}\n")
        .contains("dispatched                +2 ms, owner sidecar-1\n")
        .contains("completed                 +245 ms, HTTP 200, result ok (14 bytes)\n")
        .contains("completed_not_delivered   +10 ms\n")
        .contains("delivered                 +1 ms\n")
        .contains(
            "retry: replayed           +6740 ms, session "
                + SessionRef.mcpSession("session-two").journalValue()
                + " (claude-code 1.0.3)\n");
    String findings = out.substring(out.indexOf("Findings"));
    assertThat(findings)
        .contains(
            "  agents            across the 2 executions with this fingerprint: one actor (alice)"
                + " in one session: "
                + SessionRef.mcpSession("session-two").journalValue()
                + " (claude-code 1.0.3)\n")
        .contains("  authorization     passed at " + T0.plusSeconds(2).plusMillis(3) + "\n")
        .contains("  dispatch          reached at " + T0.plusSeconds(2).plusMillis(5) + "\n")
        .contains(
            "  target            answered at "
                + T0.plusSeconds(2).plusMillis(250)
                + "; HTTP 200; result ok\n")
        .contains("  delivery          FAILED: the result was observed but the client was gone")
        .contains("; replayed to the client at " + T0.plusSeconds(9).plusMillis(1) + "\n")
        .contains(
            "  later calls       1 answered from this execution: replayed at "
                + T0.plusSeconds(9)
                + "\n")
        .contains("  idempotency key   no: retries matched by fingerprint, actor and scope\n")
        .contains(
            "  same fingerprint  1 other execution(s) started anew: "
                + earlierFailure.id()
                + " (failed, first seen "
                + T0
                + ")\n");
  }

  @Test
  void timelineColumnsLineUpWhateverTheTimestampsPrecision() {
    // Fixture times are whole seconds (T0) and milliseconds (T0 + 2 ms): Instant.toString() would
    // print them with different widths and push the state column about.
    String out = AuditTimeline.render(dir, Optional.of(lostResponse.id().value()));
    String timeline = out.substring(out.indexOf("Timeline\n") + 9, out.indexOf("\nFindings"));
    assertThat(timeline.lines())
        .hasSizeGreaterThan(3)
        .allSatisfy(
            line ->
                assertThat(line)
                    .matches("  \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z  [a-z].*"));
    assertThat(AuditTimeline.columnTime(T0)).isEqualTo("2025-06-01T12:00:00.000000000Z");
  }

  @Test
  void timelineOfAFailedDispatchSaysTheTargetFailedBeforeAnyEffect() {
    String out = AuditTimeline.render(dir, Optional.of(earlierFailure.id().value()));
    assertThat(out)
        .contains(
            "failed before any effect at "
                + T0.plusMillis(40)
                + "; HTTP 502; JSON-RPC error -32603")
        .contains("  delivery          nothing to deliver\n")
        .contains("+35 ms, HTTP 502, JSON-RPC error -32603\n");
  }

  /**
   * An unknown outcome settled by an operator: the findings must not say the target answered, nor
   * that a delivery failed; they say who settled it and whether the settled result reached a
   * client.
   */
  @Test
  void timelineOfAnOperatorSettledExecutionSaysSoAndWhetherItWasReplayed(@TempDir Path other) {
    Instant t = T0.plusSeconds(20);
    Execution e;
    try (AuditJournals j = AuditJournals.open(other, Fixtures.options(new MutableClock(t)))) {
      Execution a = accepted("alice", "deploy", "hmac-sha256:k1:cc", t);
      j.transition(null, a);
      e = Fixtures.step(j, a, ExecutionState.DISPATCHED, t.plusMillis(1));
      e = Fixtures.step(j, e, ExecutionState.OUTCOME_UNKNOWN, t.plusSeconds(1));
      e = Fixtures.step(j, e, ExecutionState.COMPLETED, t.plusSeconds(60));
      e = Fixtures.step(j, e, ExecutionState.COMPLETED_NOT_DELIVERED, t.plusSeconds(60));
    }
    String pending = AuditTimeline.render(other, Optional.of(e.id().value()));
    assertThat(pending)
        .contains(
            "  target            NO ANSWER SEEN: outcome unknown since "
                + t.plusSeconds(1)
                + "; settled as completed at "
                + t.plusSeconds(60)
                + " without a new dispatch (an operator's resolve)\n")
        .contains(
            "  delivery          the settled result has not reached a client yet; a retry"
                + " replays it\n")
        .doesNotContain("FAILED: the result was observed");

    try (AuditJournals j = AuditJournals.open(other, Fixtures.options(new MutableClock(t)))) {
      Fixtures.step(j, e, ExecutionState.DELIVERED, t.plusSeconds(90));
    }
    assertThat(AuditTimeline.render(other, Optional.of(e.id().value())))
        .contains(
            "  delivery          the settled result was replayed to a client at "
                + t.plusSeconds(90)
                + "\n");
  }

  @Test
  void anUnknownOutcomeThatWasReDispatchedIsNotCalledSettled(@TempDir Path other) {
    Instant t = T0.plusSeconds(20);
    Execution e;
    try (AuditJournals j = AuditJournals.open(other, Fixtures.options(new MutableClock(t)))) {
      Execution a = accepted("alice", "pay", "hmac-sha256:k1:dd", t);
      j.transition(null, a);
      e = Fixtures.step(j, a, ExecutionState.DISPATCHED, t.plusMillis(1));
      e = Fixtures.step(j, e, ExecutionState.OUTCOME_UNKNOWN, t.plusSeconds(1));
      e = Fixtures.step(j, e, ExecutionState.DISPATCHED, t.plusSeconds(2));
      e = Fixtures.step(j, e, ExecutionState.COMPLETED, t.plusSeconds(3));
    }
    assertThat(AuditTimeline.render(other, Optional.of(e.id().value())))
        .contains("  target            answered at " + t.plusSeconds(3))
        .doesNotContain("operator");
  }

  @Test
  void timelineOfARejectionSaysAuthorizationSaidNo() {
    String out = AuditTimeline.render(dir, Optional.of(rejected.id().value()));
    assertThat(out)
        .contains("  authorization     REJECTED at " + T0.plusSeconds(3).plusMillis(1) + "\n")
        .contains("  dispatch          not reached (last state rejected)\n")
        .contains("  target            not asked\n")
        .contains("  same fingerprint  no other execution\n")
        .contains("  agents            one actor (mallory); no session or run recorded\n");
  }

  @Test
  void anUnknownExecutionIsSaidToHaveNoEntries() {
    assertThat(AuditTimeline.render(dir, Optional.of("act_nope")))
        .startsWith("No entries for execution act_nope in ");
  }

  @Test
  void anEmptyDirectoryHasNoExecutions(@TempDir Path empty) {
    assertThat(AuditTimeline.render(empty, Optional.empty()))
        .isEqualTo("No executions recorded.\n");
  }
}
