package dev.tally.core.store.journal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** The journal's helper threads: named, daemon (a store left open never holds the JVM up). */
final class DaemonThreads {
  private DaemonThreads() {}

  /** A single-thread executor whose thread is called {@code name}. */
  static ExecutorService single(String name) {
    return Executors.newSingleThreadExecutor(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }
}
