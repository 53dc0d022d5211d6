package dev.tally.core.audit;

import dev.tally.core.execution.Execution;
import java.time.Instant;

/** Records nothing. */
enum NoopSink implements AuditSink {
  INSTANCE;

  @Override
  public void transition(Execution before, Execution after, SessionRef session) {}

  @Override
  public void retry(Execution execution, RetryOutcome outcome, SessionRef session, Instant at) {}

  @Override
  public void session(SessionSeen seen) {}

  @Override
  public void flush() {}
}
