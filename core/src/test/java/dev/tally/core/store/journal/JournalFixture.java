package dev.tally.core.store.journal;

import static dev.tally.core.testing.Stages.await;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.Page;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import dev.tally.core.testing.StatePaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.Stream;

/** Test data and inspection helpers for journal tests. */
final class JournalFixture {
  private JournalFixture() {}

  /** Everything a store holds: records and result bytes (as text), by id. */
  record Dump(Map<ExecutionId, Execution> records, Map<ExecutionId, String> results) {}

  static Dump dump(ExecutionStore store) {
    Map<ExecutionId, Execution> records = new TreeMap<>();
    Map<ExecutionId, String> results = new TreeMap<>();
    String before = null;
    do {
      Page page = await(store.list(new ExecutionQuery(null, null, null, before, 500)));
      for (Execution e : page.items()) {
        records.put(e.id(), e);
        await(store.result(e.id()))
            .ifPresent(b -> results.put(e.id(), new String(b, StandardCharsets.UTF_8)));
      }
      before = page.next();
    } while (before != null);
    return new Dump(records, results);
  }

  static Execution claim(ExecutionStore store, MutableClock clock) {
    return claim(store, clock, Executions.candidate(clock));
  }

  static Execution claim(ExecutionStore store, MutableClock clock, Executions.Builder candidate) {
    clock.advance(Duration.ofMillis(1));
    return await(store.claim(candidate.build(), clock.instant())).execution();
  }

  static Execution move(ExecutionStore store, MutableClock clock, Execution e, ExecutionState to) {
    Transition t = Transition.to(e, to, clock.advance(Duration.ofMillis(1)));
    if (to == ExecutionState.DISPATCHED) {
      t = t.withLease(new Lease("owner-a", clock.instant().plusSeconds(30)));
    }
    return await(store.transition(t));
  }

  static Execution reach(
      ExecutionStore store, MutableClock clock, Execution e, ExecutionState target) {
    Execution current = e;
    for (ExecutionState s : StatePaths.pathTo(target)) {
      current = move(store, clock, current, s);
    }
    return current;
  }

  /**
   * Twenty executions covering what a journal holds: results kept and dropped, a result carried
   * over by later records, heartbeats, an execution awaiting input, and purged records. No
   * execution is left dispatched without awaiting input, so a reopen changes nothing.
   */
  static void populate(ExecutionStore store, MutableClock clock) {
    List<Execution> purgeable = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      Executions.Builder candidate = Executions.candidate(clock);
      Execution e =
          claim(store, clock, i % 5 == 1 ? candidate.retainFor(Duration.ofHours(1)) : candidate);
      switch (i % 5) {
        case 0 -> {
          Execution d = reach(store, clock, e, ExecutionState.DISPATCHED);
          Execution c =
              await(
                  store.transition(
                      Transition.to(d, ExecutionState.COMPLETED, clock.instant())
                          .withResult(("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8), false)
                          .clearingLease()));
          move(store, clock, c, ExecutionState.DELIVERED);
        }
        case 1 -> purgeable.add(reach(store, clock, e, ExecutionState.FAILED));
        case 2 -> {
          Execution a = move(store, clock, e, ExecutionState.AUTHORIZED);
          for (int k = 0; k < 3; k++) {
            a =
                await(
                    store.touch(
                        a.id(),
                        a.version(),
                        new Lease("owner-" + k, clock.instant().plusSeconds(30)),
                        false));
          }
        }
        case 3 -> {
          Execution d = reach(store, clock, e, ExecutionState.DISPATCHED);
          await(store.touch(d.id(), d.version(), d.lease(), true));
        }
        default -> {
          Execution d = reach(store, clock, e, ExecutionState.DISPATCHED);
          byte[] big = new byte[store.maxResultBytes() + 1];
          await(
              store.transition(
                  Transition.to(d, ExecutionState.COMPLETED, clock.instant())
                      .withResult(big, true)
                      .clearingLease()));
        }
      }
    }
    clock.advance(Duration.ofHours(2));
    if (await(store.purge(clock.instant(), 100)) != purgeable.size()) {
      throw new AssertionError("expected to purge " + purgeable.size());
    }
  }

  static long directoryBytes(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files.mapToLong(JournalFixture::size).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<String> fileNames(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long size(Path p) {
    try {
      return Files.size(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Where the frames of segment {@code file} end (before any zeros allocated ahead). */
  static long recordsEnd(Path file) {
    String name = file.getFileName().toString();
    long seq = Long.parseLong(name.substring("journal-".length(), name.length() - ".log".length()));
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file)) {
      return JournalReader.read(ch, file, JournalFormat.KIND_SEGMENT, seq, true, (e, n) -> {})
          .validEnd();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A commit observer made of its three parts (tests that watch or wrap one). */
  static CommitObserver observer(
      BiConsumer<Execution, Execution> applied, Consumer<RiderSink> collect, Runnable force) {
    return new CommitObserver() {
      @Override
      public void applied(Execution before, Execution after) {
        applied.accept(before, after);
      }

      @Override
      public void collect(RiderSink out) {
        collect.accept(out);
      }

      @Override
      public void force() {
        force.run();
      }
    };
  }
}
