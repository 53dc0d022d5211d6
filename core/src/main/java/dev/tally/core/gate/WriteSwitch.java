package dev.tally.core.gate;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The operator's live write switch: one global position and per-actor positions over it, plus the
 * actors that were revoked. Every read is of one immutable {@link State}; a change takes effect on
 * the next call and is announced to {@link #onChange listeners} (the sidecar sends {@code
 * notifications/tools/list_changed}).
 */
public final class WriteSwitch {
  /** One position of the switch. */
  public record State(boolean global, Map<String, Boolean> actors, Set<String> revoked) {
    public State {
      actors = Map.copyOf(actors);
      revoked = Set.copyOf(revoked);
    }

    /** Whether writes are on for {@code actor}. */
    public boolean on(String actor) {
      if (revoked.contains(actor)) {
        return false;
      }
      Boolean own = actors.get(actor);
      return own != null ? own : global;
    }
  }

  /**
   * What one change did: {@code event} {@code write_switch} ({@code on} true, false, or null for a
   * cleared per-actor position), {@code revoke} or {@code restore}; {@code actor} null: the global
   * position.
   */
  public record Change(String event, String actor, Boolean on) {
    /** {@code on}, {@code off} or {@code cleared} for a switch change; null otherwise. */
    public String position() {
      if (!event.equals("write_switch")) {
        return null;
      }
      return on == null ? "cleared" : on ? "on" : "off";
    }
  }

  private final AtomicReference<State> state;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final List<java.util.function.Consumer<Change>> watchers = new CopyOnWriteArrayList<>();

  private WriteSwitch(State initial) {
    this.state = new AtomicReference<>(initial);
  }

  /** A switch at {@code global}, with {@code actors} overriding it per actor. */
  public static WriteSwitch of(boolean global, Map<String, Boolean> actors) {
    return new WriteSwitch(new State(global, actors, Set.of()));
  }

  public State state() {
    return state.get();
  }

  public boolean on(String actor) {
    return state.get().on(actor);
  }

  /** Sets the global position. */
  public State setGlobal(boolean on) {
    return change(
        s -> new State(on, s.actors(), s.revoked()), new Change("write_switch", null, on));
  }

  /** Sets {@code actor}'s own position, or clears it ({@code null}) so the global one applies. */
  public State setActor(String actor, Boolean on) {
    Objects.requireNonNull(actor, "actor");
    return change(
        s -> {
          Map<String, Boolean> a = new HashMap<>(s.actors());
          if (on == null) {
            a.remove(actor);
          } else {
            a.put(actor, on);
          }
          return new State(s.global(), a, s.revoked());
        },
        new Change("write_switch", actor, on));
  }

  /** Revokes {@code actor}: no write, whatever its positions say, until {@link #restore}. */
  public State revoke(String actor) {
    return change(
        s -> {
          Set<String> r = new HashSet<>(s.revoked());
          r.add(actor);
          return new State(s.global(), s.actors(), r);
        },
        new Change("revoke", actor, null));
  }

  /** Ends a revocation of {@code actor}. */
  public State restore(String actor) {
    return change(
        s -> {
          Set<String> r = new HashSet<>(s.revoked());
          r.remove(actor);
          return new State(s.global(), s.actors(), r);
        },
        new Change("restore", actor, null));
  }

  /** Runs {@code r} after every change (on the changing thread; it must not block). */
  public void onChange(Runnable r) {
    listeners.add(Objects.requireNonNull(r));
  }

  /** Hands {@code w} what each change did (on the changing thread; it must not block). */
  public void watch(java.util.function.Consumer<Change> w) {
    watchers.add(Objects.requireNonNull(w));
  }

  private State change(java.util.function.UnaryOperator<State> f, Change what) {
    State next = state.updateAndGet(f);
    for (java.util.function.Consumer<Change> w : watchers) {
      try {
        w.accept(what);
      } catch (RuntimeException e) {
        // A watcher's failure does not undo the change.
      }
    }
    for (Runnable r : listeners) {
      try {
        r.run();
      } catch (RuntimeException e) {
        // A listener's failure does not undo the change.
      }
    }
    return next;
  }
}
