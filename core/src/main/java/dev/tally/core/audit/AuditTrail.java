package dev.tally.core.audit;

import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.journal.JournalExecutionStore;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The audit journals of a running Tally, sidecar or servlet filter (ARCHITECTURE.md §9), in the
 * directory the runtime chose for a journal store; none for the throwaway memory store (nor for
 * PostgreSQL, whose rows are the record). The activity entry of a transition is durable before the
 * transition is reported: it rides in the journal store's group commit ({@link
 * AuditCommitObserver}), and is rewritten from there at start if a power loss took it from the
 * audit file ({@link AuditRepair}). Retry and session entries, and checkpoints that fall due, are
 * made durable by a background flush every {@link #FLUSH_MILLIS} ms (one fsync per journal), never
 * on an event loop.
 */
public final class AuditTrail implements AutoCloseable {
  public static final long FLUSH_MILLIS = 200;

  private final AuditJournals journals;
  private final ScheduledExecutorService flusher;

  private AuditTrail(AuditJournals journals) {
    this.journals = journals;
    if (journals == null) {
      this.flusher = null;
      return;
    }
    this.flusher =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tally-audit-flush");
              t.setDaemon(true);
              return t;
            });
    flusher.scheduleWithFixedDelay(this::flush, FLUSH_MILLIS, FLUSH_MILLIS, TimeUnit.MILLISECONDS);
  }

  /**
   * A store opened with its audit trail: the store, wrapped so that its transitions are audited
   * ({@link #wrap}), and the trail, to close after the store.
   */
  public record Opened(ExecutionStore store, AuditTrail trail) {}

  /**
   * Opens a store with {@code opener}, which gets the {@link AuditRepair} of {@code dir} to hand a
   * journal store ({@code null} when {@code dir} is: no audit journals); logs what the repair
   * restored, if anything; opens the audit journals in {@code dir} and wraps the store. On a
   * failure everything opened here is closed again. {@code target} names what the calls reach (the
   * sidecar's upstream, the filter's application) in every activity entry.
   */
  public static Opened openStore(
      Path dir,
      Function<AuditRepair, ExecutionStore> opener,
      String target,
      Clock clock,
      Consumer<String> log) {
    AuditRepair repair = dir == null ? null : AuditRepair.of(dir);
    ExecutionStore raw;
    try {
      raw = opener.apply(repair);
    } catch (RuntimeException e) {
      if (repair != null) {
        repair.abandon();
      }
      throw e;
    }
    AuditTrail trail = none();
    try {
      if (repair != null) {
        String repaired = repair.finish().describe(dir);
        if (repaired != null) {
          log.accept(repaired);
        }
        trail = open(dir, target, clock, log);
      }
      return new Opened(trail.wrap(raw), trail);
    } catch (RuntimeException e) {
      raw.close();
      trail.close();
      throw e;
    }
  }

  /** No audit journals: a store the caller opened, or one without them. */
  public static AuditTrail none() {
    return new AuditTrail(null);
  }

  /** Opens the audit journals in {@code dir}; {@code log} gets one line naming the directory. */
  public static AuditTrail open(Path dir, String target, Clock clock, Consumer<String> log) {
    AuditJournals j =
        AuditJournals.open(dir, AuditOptions.defaults().withClock(clock).withTarget(target));
    log.accept(
        "tally: audit journals in " + dir + " (verify with: tally audit verify " + dir + ")");
    return new AuditTrail(j);
  }

  /**
   * Makes every transition of the store audited. A journal store reports its changes to the audit
   * journals itself (before its stages complete); its transitions made while it opened (executions
   * the previous process left dispatched, now {@code outcome_unknown}) happened before that, so
   * they are recorded and flushed here. Any other store is wrapped.
   */
  public ExecutionStore wrap(ExecutionStore store) {
    if (journals == null) {
      return store;
    }
    if (store instanceof JournalExecutionStore j) {
      if (!j.settledAtOpen().isEmpty()) {
        for (JournalExecutionStore.Settled s : j.settledAtOpen()) {
          journals.transition(s.before(), s.after());
        }
        journals.flush();
      }
      j.observe(AuditCommitObserver.of(journals));
      return j;
    }
    return AuditedExecutionStore.wrap(store, journals);
  }

  /** Why the audit journals cannot write (see {@link AuditJournals#problem}), or null. */
  public String problem() {
    return journals == null ? null : journals.problem();
  }

  public AuditSink sink() {
    return journals == null ? AuditSink.noop() : journals;
  }

  private void flush() {
    try {
      journals.flush();
      journals.checkpointIfDue();
    } catch (RuntimeException e) {
      // Reported by readiness through the store; a flush failure leaves a detectable gap.
    }
  }

  @Override
  public void close() {
    if (journals != null) {
      // Let a flush in progress finish: interrupting its fsync (shutdownNow) closes the channel
      // (ClosedByInterruptException) and the journal refuses every later entry, the last
      // checkpoint included.
      flusher.shutdown();
      try {
        if (!flusher.awaitTermination(5, TimeUnit.SECONDS)) {
          flusher.shutdownNow();
        }
      } catch (InterruptedException e) {
        flusher.shutdownNow();
        Thread.currentThread().interrupt();
      }
      journals.close();
    }
  }
}
