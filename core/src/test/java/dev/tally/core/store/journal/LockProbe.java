package dev.tally.core.store.journal;

import static dev.tally.core.testing.Stages.await;

import dev.tally.core.store.StoreException;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A second process for {@link JournalLockIT}: opens the journal in {@code args[0]}, prints {@code
 * OPENED <id>} after a durable claim (or {@code REFUSED <message>}), then waits for a line on stdin
 * before it exits without closing the store.
 */
public final class LockProbe {
  private LockProbe() {}

  public static void main(String[] args) throws Exception {
    MutableClock clock = MutableClock.create();
    JournalExecutionStore store;
    try {
      store =
          JournalExecutionStore.open(JournalOptions.defaults(Path.of(args[0])).withClock(clock));
    } catch (StoreException e) {
      System.out.println("REFUSED " + e.getMessage());
      System.out.flush();
      return;
    }
    var claim = await(store.claim(Executions.candidate(clock).build(), clock.instant()));
    System.out.println("OPENED " + claim.execution().id());
    System.out.flush();
    new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    Runtime.getRuntime().halt(0);
  }
}
