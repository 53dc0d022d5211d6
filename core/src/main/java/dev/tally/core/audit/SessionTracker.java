package dev.tally.core.audit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides which session sightings become entries: the first sighting, a change of actor or client
 * information, and a sighting at least the update interval after the last entry. Remembers a
 * bounded number of sessions, least recently seen evicted first. Not thread-safe.
 */
final class SessionTracker {
  static final String SESSION = "session";
  private static final int MAX_CLIENT = 128;
  private static final int MAX_PROTOCOL = 32;

  /** The most members a session entry has, with {@code v}, {@code seq} and {@code prev}. */
  private static final int MEMBERS = 14;

  private static final class Known {
    String kind;
    String actor;
    String clientName;
    String clientVersion;
    String protocol;
    Instant firstSeen;
    Instant lastSeen;
    Instant lastWritten;
  }

  private final Duration updateInterval;
  private final Map<String, Known> known;

  SessionTracker(Duration updateInterval, int capacity) {
    this.updateInterval = updateInterval;
    this.known =
        new LinkedHashMap<>(16, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Known> eldest) {
            return size() > capacity;
          }
        };
  }

  /** The entry body this sighting calls for, or {@code null}. */
  FlatEntry observe(SessionSeen s) {
    String ref = s.session().journalValue();
    String actor = Text.clean(s.actor(), ActivityEntries.MAX_NAME);
    Known k = known.get(ref);
    if (k == null) {
      k = new Known();
      k.kind = s.session().kind().wireName();
      k.actor = actor;
      k.clientName = Text.clean(s.clientName(), MAX_CLIENT);
      k.clientVersion = Text.clean(s.clientVersion(), MAX_CLIENT);
      k.protocol = Text.clean(s.protocolVersion(), MAX_PROTOCOL);
      k.firstSeen = s.at();
      k.lastSeen = s.at();
      known.put(ref, k);
      return written(ref, k, "first_seen");
    }
    boolean changed = !actor.equals(k.actor);
    k.actor = actor;
    changed |= merge(k, s);
    if (s.at().isAfter(k.lastSeen)) {
      k.lastSeen = s.at();
    }
    if (changed || !k.lastSeen.isBefore(k.lastWritten.plus(updateInterval))) {
      return written(ref, k, "updated");
    }
    return null;
  }

  private static boolean merge(Known k, SessionSeen s) {
    String name = Text.clean(s.clientName(), MAX_CLIENT);
    String version = Text.clean(s.clientVersion(), MAX_CLIENT);
    String protocol = Text.clean(s.protocolVersion(), MAX_PROTOCOL);
    boolean changed = false;
    if (name != null && !name.equals(k.clientName)) {
      k.clientName = name;
      changed = true;
    }
    if (version != null && !version.equals(k.clientVersion)) {
      k.clientVersion = version;
      changed = true;
    }
    if (protocol != null && !protocol.equals(k.protocol)) {
      k.protocol = protocol;
      changed = true;
    }
    return changed;
  }

  /** {@code updated} entries for sessions seen since their last entry (called on close). */
  List<FlatEntry> drain() {
    List<FlatEntry> out = new ArrayList<>();
    for (Map.Entry<String, Known> e : known.entrySet()) {
      Known k = e.getValue();
      if (k.lastSeen.isAfter(k.lastWritten)) {
        out.add(written(e.getKey(), k, "updated"));
      }
    }
    return out;
  }

  /** The entry for {@code k} now; members in canonical (sorted) order, see {@link FlatEntry}. */
  private static FlatEntry written(String ref, Known k, String event) {
    k.lastWritten = k.lastSeen;
    FlatEntry e = new FlatEntry(MEMBERS);
    e.put("actor", k.actor);
    e.put(EntryCodec.AT, k.lastSeen.toString());
    putIfPresent(e, "client_name", k.clientName);
    putIfPresent(e, "client_version", k.clientVersion);
    e.put("event", event);
    e.put("first_seen", k.firstSeen.toString());
    e.put("kind", k.kind);
    e.put("last_seen", k.lastSeen.toString());
    putIfPresent(e, "protocol", k.protocol);
    e.put("session", ref);
    e.put(EntryCodec.TYPE, SESSION);
    return e;
  }

  private static void putIfPresent(FlatEntry e, String field, String value) {
    if (value != null) {
      e.put(field, value);
    }
  }
}
