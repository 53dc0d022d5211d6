package dev.tally.sidecar.internal.stream;

import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * All relayed streams of one sidecar, by stream id, and each session's latest standalone (GET)
 * stream. A stream whose every event reached a client is forgotten when it ends; {@link #sweep()}
 * drops the others once they ended, or were left without a client, for longer than the age limit.
 *
 * <p>All streams together keep at most {@link StreamLimits#maxTotalBytes()} encoded bytes. Past it,
 * whole streams are evicted until the total fits, in this order: ended streams, then live streams
 * no client is attached to, then attached ones; within each, the one idle longest first. An evicted
 * stream cannot be resumed any more ({@code Last-Event-ID} into it is unknown, 404), but nothing
 * stored is lost: the upstream is still read to its end and the result recorded for replay, and an
 * attached client still gets live events. Thread-safe.
 */
public final class StreamRegistry {
  private final Map<String, StreamBuffer> streams = new ConcurrentHashMap<>();
  private final Map<String, StreamBuffer> standalone = new ConcurrentHashMap<>();
  private final Map<String, String> sessionOwners = new ConcurrentHashMap<>();
  private final StreamLimits limits;
  private final InstantSource clock;
  private final AtomicLong total = new AtomicLong();
  private final AtomicLong evictions = new AtomicLong();
  private final AtomicBoolean shedding = new AtomicBoolean();

  /** One stream's place in the eviction order, taken under its lock. */
  record Candidate(StreamBuffer buffer, int rank, Instant idleSince, long bytes) {}

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
      StreamBuffer b = new StreamBuffer(id, session, owner, limits, clock, this);
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

  /**
   * Appends {@code message} (one JSON-RPC notification) to every session's live standalone stream:
   * what the server-to-client channel of a 2025-era session is for. Returns how many streams got
   * it. A 2026-07-28 client has no such stream and asks again on its next {@code tools/list}.
   */
  public int notifyStandalone(byte[] message) {
    int n = 0;
    for (StreamBuffer b : standalone.values()) {
      if (!b.ended()) {
        b.append(dev.tally.core.mcp.SseEvent.message(message), dev.tally.core.call.Delivery.NONE);
        n++;
      }
    }
    return n;
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

  /** Encoded bytes all streams keep now. */
  public long keptBytes() {
    return total.get();
  }

  /** Streams evicted to keep {@link StreamLimits#maxTotalBytes()}, since start. */
  public long evictions() {
    return evictions.get();
  }

  void kept(long delta) {
    total.addAndGet(delta);
  }

  /** Evicts whole streams while the total is over its bound (one caller at a time). */
  void shedIfOver() {
    if (total.get() <= limits.maxTotalBytes() || !shedding.compareAndSet(false, true)) {
      return;
    }
    try {
      List<Candidate> order = new ArrayList<>();
      for (StreamBuffer b : streams.values()) {
        order.add(b.candidate());
      }
      order.sort(
          Comparator.comparingInt(Candidate::rank)
              .thenComparing(Candidate::idleSince)
              .thenComparing(Comparator.comparingLong(Candidate::bytes).reversed()));
      for (Candidate c : order) {
        if (total.get() <= limits.maxTotalBytes()) {
          break;
        }
        if (c.buffer().evictForBudget() > 0) {
          evictions.incrementAndGet();
        }
      }
    } finally {
      shedding.set(false);
    }
  }

  /** Streams currently kept. */
  public int size() {
    return streams.size();
  }
}
