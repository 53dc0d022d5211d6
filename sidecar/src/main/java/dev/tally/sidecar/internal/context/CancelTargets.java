package dev.tally.sidecar.internal.context;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.mcp.Notifications;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The dispatched calls in flight, by the MCP session and the JSON-RPC id their client sent them
 * with, so that a {@code notifications/cancelled} the client posts on that session reaches the call
 * it names (2025-03-26 … 2025-11-25 transports; a 2026-07-28 client cancels by closing its stream).
 * A call is listed from the moment it is sent upstream until it settles. Thread-safe.
 *
 * <p>Only calls on a session are listed: the session id is what the upstream itself trusts to route
 * the cancellation, so whoever may cancel the call upstream may also make its outcome unknown here.
 * Without a session, ids alone (clients reuse small numbers) could name another client's call; such
 * a call settles by its answer or {@code upstream.timeout}.
 */
public final class CancelTargets {
  /** A call that can be told that its client cancelled it. */
  public interface Target {
    /** The client cancelled the call; may be called on any thread, at most once. */
    void cancelledByClient();
  }

  private final Map<String, Target> calls = new ConcurrentHashMap<>();

  /**
   * Lists {@code target} as the call {@code id} on {@code session}; returns the key to {@link
   * #remove} it with, or {@code null} when it cannot be listed (no session, an id that is neither a
   * string nor an integer, or another call in flight under the same session and id).
   */
  public String add(String session, JsonNode id, Target target) {
    String key = key(session, id);
    if (key == null || calls.putIfAbsent(key, target) != null) {
      return null;
    }
    return key;
  }

  /** Unlists the call added under {@code key} ({@code null}: nothing). */
  public void remove(String key, Target target) {
    if (key != null) {
      calls.remove(key, target);
    }
  }

  /**
   * Tells the call {@code requestId} on {@code session} that its client cancelled it; returns
   * whether such a call was in flight. It is unlisted at once (a second cancellation finds none).
   */
  public boolean cancel(String session, JsonNode requestId) {
    String key = key(session, requestId);
    Target t = key == null ? null : calls.remove(key);
    if (t == null) {
      return false;
    }
    t.cancelledByClient();
    return true;
  }

  /** Calls listed now (for tests). */
  public int size() {
    return calls.size();
  }

  private static String key(String session, JsonNode id) {
    String idKey = Notifications.idKey(id);
    if (session == null || session.isEmpty() || idKey == null) {
      return null;
    }
    return session.length() + ":" + session + idKey;
  }
}
