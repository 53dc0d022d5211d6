package dev.tally.sidecar.internal.stream;

import dev.tally.core.call.Delivery;
import dev.tally.core.mcp.SseEvent;
import dev.tally.core.mcp.SseWriter;
import io.vertx.core.buffer.Buffer;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * One relayed SSE stream: events get the sidecar's ids ({@code <stream>.<seq>}) and are kept,
 * bounded by count, bytes and age, so a client can resume with {@code Last-Event-ID} even when the
 * upstream keeps no history. At most one client is attached at a time; the upstream side keeps
 * appending whether or not one is. Thread-safe (the upstream and a resuming client may live on
 * different event loops).
 */
public final class StreamBuffer {
  private final String id;
  private final String session;
  private final String owner;
  private final StreamLimits limits;
  private final InstantSource clock;
  private final StreamRegistry registry;
  private final ArrayDeque<Entry> entries = new ArrayDeque<>();
  private long nextSeq = 1;
  private long bytes;
  private boolean ended;
  private boolean evicted;
  private Instant idleSince;
  private EventSink sink;
  private Runnable cancelUpstream = () -> {};

  /** How long an ended stream whose events were all written stays resumable. */
  static final Duration CONFIRMED_GRACE = Duration.ofSeconds(10);

  private int unconfirmed;

  private static final class Entry {
    final long seq;
    final Buffer bytes;
    final Instant at;
    Delivery delivery;
    boolean confirmed;

    Entry(long seq, Buffer bytes, Instant at, Delivery delivery) {
      this.seq = seq;
      this.bytes = bytes;
      this.at = at;
      this.delivery = delivery;
    }
  }

  /** Outcome of a resumption attempt. */
  public enum Resume {
    /** Replayed; the client is attached (or ended, if the stream had ended). */
    RESUMED,
    /** The cursor is not in the buffer any more (or never was). */
    UNKNOWN
  }

  StreamBuffer(
      String id,
      String session,
      String owner,
      StreamLimits limits,
      InstantSource clock,
      StreamRegistry registry) {
    this.registry = registry;
    this.id = id;
    this.session = session;
    this.owner = owner;
    this.limits = limits;
    this.clock = clock;
    this.idleSince = clock.instant();
  }

  public String id() {
    return id;
  }

  /**
   * The actor of the request that opened the stream ({@code Gate#ownerOf}); only that actor may
   * resume or re-attach to it. {@code null}: unbound.
   */
  public String owner() {
    return owner;
  }

  /** The {@code Mcp-Session-Id} the stream belongs to, or {@code null}. */
  public String session() {
    return session;
  }

  /** The cursor a client holds before the first event ({@code <stream>.0}). */
  public String primingId() {
    return new EventId(id, 0).toString();
  }

  /** How to stop reading the upstream if the stream is abandoned. */
  public synchronized void onCancel(Runnable cancel) {
    this.cancelUpstream = cancel;
  }

  /** Attaches the first client, which has seen nothing yet. */
  public synchronized void attach(EventSink s) {
    this.sink = s;
  }

  /** The client went away; the stream keeps buffering. */
  public synchronized void detach(EventSink s) {
    if (sink == s) {
      sink = null;
      idleSince = clock.instant();
    }
  }

  /**
   * Appends an event under the next id, writes it to the attached client if any, and tells {@code
   * delivery} whether it got there.
   */
  public void append(SseEvent event, Delivery delivery) {
    EventSink target;
    Entry e;
    synchronized (this) {
      if (ended) {
        delivery.written(false);
        return;
      }
      long seq = nextSeq++;
      Buffer b = Buffer.buffer(SseWriter.encode(event.withId(new EventId(id, seq).toString())));
      e = new Entry(seq, b, clock.instant(), delivery);
      if (!evicted) {
        // An evicted stream is no longer resumable: its events go to the client, not the buffer.
        entries.addLast(e);
        unconfirmed++;
        bytes += b.length();
        registry.kept(b.length());
        evict();
      }
      target = sink;
    }
    registry.shedIfOver();
    send(target, e);
  }

  /** A snapshot for the registry's eviction order: ended, then unattended, then attached. */
  synchronized StreamRegistry.Candidate candidate() {
    int rank = ended ? 0 : sink == null ? 1 : 2;
    return new StreamRegistry.Candidate(this, rank, idleSince, bytes);
  }

  /**
   * Drops every kept event to bring the total under its bound: from now on the stream cannot be
   * resumed ({@code Last-Event-ID} into it is unknown), while an attached client keeps receiving
   * live events and the upstream is still read, so a result is still captured and stored. Returns
   * the bytes freed.
   */
  long evictForBudget() {
    java.util.List<Entry> dropped;
    synchronized (this) {
      if (evicted || entries.isEmpty()) {
        evicted = true;
        return 0;
      }
      evicted = true;
      dropped = new java.util.ArrayList<>(entries);
      entries.clear();
      long freed = bytes;
      bytes = 0;
      registry.kept(-freed);
      for (Entry e : dropped) {
        if (!e.confirmed) {
          unconfirmed--;
        }
      }
      if (ended) {
        idleSince = Instant.MIN.plusSeconds(1); // the next sweep forgets it
      }
      return freed;
    }
  }

  private void send(EventSink target, Entry e) {
    if (target == null) {
      report(e, false);
      return;
    }
    target.write(e.bytes).onComplete(ar -> report(e, ar.succeeded()));
  }

  private void report(Entry e, boolean ok) {
    Delivery d;
    boolean done = false;
    synchronized (this) {
      if (ok && !e.confirmed) {
        e.confirmed = true;
        unconfirmed--;
        done = ended && unconfirmed == 0;
      }
      d = e.delivery;
      if (ok) {
        e.delivery = null;
      }
    }
    if (d != null) {
      d.written(ok);
    }
    if (done) {
      settled();
    }
  }

  /**
   * Every event was written to a client and the stream ended. A successful write is no proof of
   * receipt (the peer may already be gone and the reset not yet seen), so the stream stays
   * resumable for {@link #CONFIRMED_GRACE} before the sweep forgets it.
   */
  private synchronized void settled() {
    idleSince = clock.instant();
  }

  /** The upstream stream ended: an attached client is ended too; later resumes replay and end. */
  public void end() {
    EventSink s;
    boolean done;
    synchronized (this) {
      if (ended) {
        return;
      }
      ended = true;
      idleSince = clock.instant();
      s = sink;
      sink = null;
      done = unconfirmed == 0;
    }
    if (s != null) {
      s.end();
    }
    if (done) {
      settled();
    }
  }

  public synchronized boolean ended() {
    return ended;
  }

  /**
   * Resumes after {@code afterSeq}: replays every kept event after it to {@code s}, then attaches
   * {@code s} (replacing and ending any previous client) or ends it if the stream has ended.
   */
  public Resume resume(long afterSeq, EventSink s) {
    EventSink previous;
    boolean endNow;
    java.util.List<Entry> replay = new java.util.ArrayList<>();
    synchronized (this) {
      evict();
      long first = entries.isEmpty() ? nextSeq : entries.peekFirst().seq;
      if (evicted || afterSeq >= nextSeq || afterSeq < first - 1) {
        return Resume.UNKNOWN;
      }
      for (Entry e : entries) {
        if (e.seq > afterSeq) {
          replay.add(e);
        }
      }
      previous = sink;
      endNow = ended;
      sink = endNow ? null : s;
    }
    if (previous != null && previous != s) {
      previous.end();
    }
    for (Entry e : replay) {
      send(s, e);
    }
    if (endNow) {
      s.end();
    }
    return Resume.RESUMED;
  }

  /**
   * Attaches a client that came back without a cursor (a plain GET on the session; clients before
   * protocol 2025-11-25 get no priming id to resume from) to this live stream nobody is attached
   * to: sends it every kept event no client has received, then continues live. Returns false,
   * changing nothing, when a client is attached or the stream has ended.
   */
  public boolean reattach(EventSink s) {
    java.util.List<Entry> replay = new java.util.ArrayList<>();
    synchronized (this) {
      if (ended || evicted || sink != null) {
        return false;
      }
      evict();
      for (Entry e : entries) {
        if (!e.confirmed) {
          replay.add(e);
        }
      }
      sink = s;
    }
    for (Entry e : replay) {
      send(s, e);
    }
    return true;
  }

  /**
   * Whether the registry may drop this stream at {@code now}: it ended, or no client has been
   * attached, for longer than the age limit. An abandoned live stream has its upstream cancelled.
   */
  boolean expire(Instant now) {
    Runnable cancel;
    synchronized (this) {
      Duration keep =
          ended && unconfirmed == 0 && CONFIRMED_GRACE.compareTo(limits.maxAge()) < 0
              ? CONFIRMED_GRACE
              : limits.maxAge();
      if (sink != null || now.isBefore(idleSince.plus(keep))) {
        return false;
      }
      cancel = ended ? null : cancelUpstream;
      ended = true;
      entries.clear();
      registry.kept(-bytes);
      bytes = 0;
      unconfirmed = 0;
    }
    if (cancel != null) {
      cancel.run();
    }
    return true;
  }

  private void evict() {
    Instant oldest = clock.instant().minus(limits.maxAge());
    Iterator<Entry> it = entries.iterator();
    while (it.hasNext()) {
      Entry e = it.next();
      boolean over =
          entries.size() > limits.maxEvents() || bytes > limits.maxBytes() || e.at.isBefore(oldest);
      if (!over) {
        break;
      }
      it.remove();
      bytes -= e.bytes.length();
      registry.kept(-e.bytes.length());
      if (!e.confirmed) {
        unconfirmed--;
      }
    }
  }

  synchronized int size() {
    return entries.size();
  }

  @Override
  public String toString() {
    return "StreamBuffer[" + id + "]";
  }
}
