package dev.tally.sidecar.internal.stream;

import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * All relayed streams of one sidecar, by stream id, and each session's latest standalone (GET)
 * stream. A stream whose every event reached a client is forgotten when it ends; {@link #sweep()}
 * drops the others once they ended, or were left without a client, for longer than the age limit.
 * Thread-safe.
 */
public final class StreamRegistry {
  private final Map<String, StreamBuffer> streams = new ConcurrentHashMap<>();
  private final Map<String, StreamBuffer> standalone = new ConcurrentHashMap<>();
  private final Map<String, String> sessionOwners = new ConcurrentHashMap<>();
  private final StreamLimits limits;
  private final InstantSource clock;

  private StreamRegistry(StreamLimits limits, InstantSource clock) {
    this.limits = limits;
    this.clock = clock;
  }

  public static StreamRegistry create(StreamLimits limits, InstantSource clock) {
    return new StreamRegistry(limits, clock);
  }

  /**
   * A new stream belonging to {@code session} (may be {@code null}) and opened by {@code owner} (an
   * actor, or {@code null}: unbound). The session is bound to the first owner that opened one of
   * its streams, for as long as this sidecar keeps any stream of it ({@link #sessionOwner}).
   */
  public StreamBuffer open(String session, String owner) {
    if (session != null && owner != null) {
      sessionOwners.putIfAbsent(session, owner);
    }
    while (true) {
      String id = EventId.newStreamId();
      StreamBuffer b = new StreamBuffer(id, session, owner, limits, clock);
      if (streams.putIfAbsent(id, b) == null) {
        return b;
      }
    }
  }

  /** An unbound stream (tests of the buffer). */
  StreamBuffer open(String session) {
    return open(session, null);
  }

  /** The actor {@code session} is bound to here, or {@code null} when unknown. */
  public String sessionOwner(String session) {
    return session == null ? null : sessionOwners.get(session);
  }

  /**
   * A new standalone (GET) stream of {@code session}, which {@link #standalone(String)} returns
   * until another replaces it or it is dropped.
   */
  public StreamBuffer openStandalone(String session, String owner) {
    StreamBuffer b = open(session, owner);
    if (session != null) {
      standalone.put(session, b);
    }
    return b;
  }

  /** The latest standalone stream of {@code session}, or {@code null}. */
  public StreamBuffer standalone(String session) {
    StreamBuffer b = session == null ? null : standalone.get(session);
    return b == null || b.ended() ? null : b;
  }

  private void remove(StreamBuffer b) {
    streams.remove(b.id(), b);
    if (b.session() != null) {
      standalone.remove(b.session(), b);
    }
  }

  /** The stream a cursor points into, or {@code null}. */
  public StreamBuffer find(EventId cursor) {
    return cursor == null ? null : streams.get(cursor.stream());
  }

  /** Drops expired streams; returns how many. */
  public int sweep() {
    int n = 0;
    var now = clock.instant();
    for (StreamBuffer b : streams.values()) {
      if (b.expire(now)) {
        remove(b);
        n++;
      }
    }
    if (n > 0 || sessionOwners.size() > streams.size()) {
      java.util.Set<String> live = new java.util.HashSet<>();
      for (StreamBuffer b : streams.values()) {
        if (b.session() != null) {
          live.add(b.session());
        }
      }
      sessionOwners.keySet().retainAll(live);
    }
    return n;
  }

  /** Streams currently kept. */
  public int size() {
    return streams.size();
  }
}
