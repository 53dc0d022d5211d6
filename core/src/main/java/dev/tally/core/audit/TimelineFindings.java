package dev.tally.core.audit;

import dev.tally.core.audit.JournalEntries.Entry;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What {@link AuditTimeline} concludes about one execution, in the order an incident asks: one
 * agent or two; did the call pass authorization and reach dispatch; did the target answer; was
 * delivery the part that failed; did later calls attach, carry a key, or start anew.
 */
final class TimelineFindings {
  private TimelineFindings() {}

  /**
   * Notes for one timeline line: what this entry adds to {@code previous} (the execution's entry
   * before it, or {@code null}), since later entries repeat the outcome of earlier ones.
   */
  static void describe(Entry e, Entry previous, Map<String, Entry> sessions, List<String> notes) {
    if (ActivityEntries.STATUS_LOOKUP.equals(e.type())) {
      notes.add(
          "asked "
              + (e.text("status_tool") == null ? "the status tool" : e.text("status_tool"))
              + (e.text("attempt") == null ? "" : " (attempt " + e.text("attempt") + ")"));
      return;
    }
    if (e.text("owner") != null && !e.text("owner").equals(previousText(previous, "owner"))) {
      notes.add("owner " + e.text("owner"));
    }
    if (isNew(e, previous, "target_status")) {
      notes.add("HTTP " + e.text("target_status"));
    }
    if (isNew(e, previous, "rpc_error")) {
      notes.add("JSON-RPC error " + e.text("rpc_error"));
    }
    if (isNew(e, previous, "result") || isNew(e, previous, "result_bytes")) {
      String r = "result " + e.text("result");
      if (e.text("result_bytes") != null) {
        r += " (" + e.text("result_bytes") + " bytes";
        r += "no".equals(e.text("result_retained")) ? ", not retained)" : ")";
      }
      notes.add(r);
    }
    if ("yes".equals(e.text("awaiting_input"))) {
      notes.add("asked the client for input");
    }
    String session = e.text("session");
    if (session != null) {
      notes.add("session " + session + client(sessions.get(session)));
    }
  }

  private static boolean isNew(Entry e, Entry previous, String field) {
    String v = e.text(field);
    return v != null && !v.equals(previousText(previous, field));
  }

  private static String previousText(Entry previous, String field) {
    return previous == null ? null : previous.text(field);
  }

  private static String client(Entry s) {
    if (s == null || s.text("client_name") == null) {
      return "";
    }
    String v = s.text("client_version");
    return " (" + s.text("client_name") + (v == null ? "" : " " + v) + ")";
  }

  /** Name/value pairs answering the incident questions for execution {@code id}. */
  static List<String[]> of(
      String id, List<Entry> mine, Map<String, List<Entry>> all, Map<String, Entry> sessions) {
    List<String[]> out = new ArrayList<>();
    String fingerprint = AuditTimeline.last(mine, "fingerprint");
    List<String> related = new ArrayList<>();
    int group = 0;
    Set<String> actors = new LinkedHashSet<>();
    Set<String> sessionRefs = new LinkedHashSet<>();
    for (Map.Entry<String, List<Entry>> x : all.entrySet()) {
      boolean same =
          x.getKey().equals(id)
              || (fingerprint != null
                  && fingerprint.equals(AuditTimeline.last(x.getValue(), "fingerprint")));
      if (!same) {
        continue;
      }
      group++;
      if (!x.getKey().equals(id)) {
        related.add(
            x.getKey()
                + " ("
                + AuditTimeline.lastState(x.getValue())
                + ", first seen "
                + AuditTimeline.time(x.getValue().get(0).at())
                + ")");
      }
      for (Entry e : x.getValue()) {
        addIfPresent(actors, e.text("actor"));
        addIfPresent(sessionRefs, e.text("session"));
      }
    }
    out.add(
        new String[] {
          "agents",
          (group > 1 ? "across the " + group + " executions with this fingerprint: " : "")
              + agents(actors, sessionRefs, sessions)
        });
    out.add(new String[] {"authorization", authorization(mine)});
    Entry dispatched = firstState(mine, "dispatched");
    out.add(
        new String[] {
          "dispatch",
          dispatched == null
              ? "not reached (last state " + AuditTimeline.lastState(mine) + ")"
              : "reached at " + AuditTimeline.time(dispatched.at())
        });
    out.add(new String[] {"target", target(mine, dispatched != null)});
    out.add(new String[] {"delivery", delivery(mine)});
    out.add(new String[] {"later calls", retries(mine)});
    String match = AuditTimeline.last(mine, "match");
    out.add(
        new String[] {
          "idempotency key",
          match == null
              ? "not recorded"
              : "idempotency_key".equals(match)
                  ? "yes: retries matched by the key the client sent"
                  : "no: retries matched by fingerprint, actor and scope"
        });
    out.add(
        new String[] {
          "same fingerprint",
          related.isEmpty()
              ? "no other execution"
              : related.size() + " other execution(s) started anew: " + String.join("; ", related)
        });
    return out;
  }

  private static String agents(
      Set<String> actors, Set<String> sessionRefs, Map<String, Entry> sessions) {
    String who =
        actors.isEmpty()
            ? "no actor recorded"
            : actors.size() == 1
                ? "one actor (" + actors.iterator().next() + ")"
                : actors.size() + " actors (" + String.join(", ", actors) + ")";
    if (sessionRefs.isEmpty()) {
      return who + "; no session or run recorded";
    }
    List<String> s = new ArrayList<>();
    for (String ref : sessionRefs) {
      s.add(ref + client(sessions.get(ref)));
    }
    String where =
        sessionRefs.size() == 1 ? " in one session: " : " in " + s.size() + " sessions: ";
    return who
        + where
        + String.join(", ", s)
        + (sessionRefs.size() > 1 ? " (more than one agent, or one that reconnected)" : "");
  }

  private static String authorization(List<Entry> mine) {
    Entry rejected = firstState(mine, "rejected");
    if (rejected != null) {
      return "REJECTED at " + AuditTimeline.time(rejected.at());
    }
    Entry pending = firstState(mine, "pending_confirmation");
    Entry authorized = firstState(mine, "authorized");
    String p =
        pending == null
            ? ""
            : "waited for confirmation from " + AuditTimeline.time(pending.at()) + "; ";
    if (authorized != null) {
      return p + "passed at " + AuditTimeline.time(authorized.at());
    }
    for (String end : List.of("cancelled", "expired")) {
      Entry e = firstState(mine, end);
      if (e != null) {
        return p + end + " at " + AuditTimeline.time(e.at());
      }
    }
    return p + "no separate authorization step recorded";
  }

  private static String target(List<Entry> mine, boolean dispatched) {
    String status = AuditTimeline.last(mine, "target_status");
    String rpc = AuditTimeline.last(mine, "rpc_error");
    Entry completed = firstState(mine, "completed");
    Entry unknown = firstState(mine, "outcome_unknown");
    Entry failed = firstState(mine, "failed");
    StringBuilder sb = new StringBuilder();
    Entry settled = settledWithoutDispatch(mine, unknown);
    if (settled != null) {
      sb.append("NO ANSWER SEEN: outcome unknown since ")
          .append(AuditTimeline.time(unknown.at()))
          .append("; settled as ")
          .append(settled.text("state"))
          .append(" at ")
          .append(AuditTimeline.time(settled.at()))
          .append(" without a new dispatch (an operator's resolve)");
    } else if (completed != null) {
      sb.append("answered at ").append(AuditTimeline.time(completed.at()));
    } else if (unknown != null) {
      sb.append("NO ANSWER SEEN: outcome unknown since ").append(AuditTimeline.time(unknown.at()));
    } else if (failed != null) {
      sb.append("failed before any effect at ").append(AuditTimeline.time(failed.at()));
    } else {
      sb.append(dispatched ? "no answer recorded yet" : "not asked");
    }
    if (status != null) {
      sb.append("; HTTP ").append(status);
    }
    if (rpc != null) {
      sb.append("; JSON-RPC error ").append(rpc);
    }
    String result = AuditTimeline.last(mine, "result");
    if (result != null) {
      sb.append("; result ").append(result);
    }
    return sb.toString();
  }

  private static String delivery(List<Entry> mine) {
    Entry notDelivered = firstState(mine, "completed_not_delivered");
    Entry delivered = firstState(mine, "delivered");
    Entry settled = settledWithoutDispatch(mine, firstState(mine, "outcome_unknown"));
    if (settled != null && "completed".equals(settled.text("state"))) {
      return delivered == null
          ? "the settled result has not reached a client yet; a retry replays it"
          : "the settled result was replayed to a client at " + AuditTimeline.time(delivered.at());
    }
    if (notDelivered != null) {
      String s =
          "FAILED: the result was observed but the client was gone ("
              + AuditTimeline.time(notDelivered.at())
              + "); a retry replays it, nothing runs again";
      return delivered == null
          ? s
          : s + "; replayed to the client at " + AuditTimeline.time(delivered.at());
    }
    if (delivered != null) {
      return "delivered at " + AuditTimeline.time(delivered.at());
    }
    return firstState(mine, "completed") != null ? "not recorded yet" : "nothing to deliver";
  }

  private static String retries(List<Entry> mine) {
    List<String> r = new ArrayList<>();
    for (Entry e : mine) {
      if (ActivityEntries.RETRY.equals(e.type())) {
        String outcome = e.text("outcome");
        r.add((outcome == null ? "answered" : outcome) + " at " + AuditTimeline.time(e.at()));
      }
    }
    return r.isEmpty()
        ? "none answered from this execution"
        : r.size() + " answered from this execution: " + String.join(", ", r);
  }

  /**
   * The {@code completed} or {@code failed} transition that settled an {@code outcome_unknown}
   * execution with no dispatch after {@code unknown}: only an operator's resolve does that (a
   * re-dispatch records {@code dispatched} first). Null otherwise.
   */
  private static Entry settledWithoutDispatch(List<Entry> mine, Entry unknown) {
    if (unknown == null) {
      return null;
    }
    for (int i = mine.indexOf(unknown) + 1; i < mine.size(); i++) {
      Entry e = mine.get(i);
      if (!ActivityEntries.TRANSITION.equals(e.type())) {
        continue;
      }
      String state = e.text("state");
      if ("dispatched".equals(state)) {
        return null;
      }
      if ("completed".equals(state) || "failed".equals(state)) {
        return e;
      }
    }
    return null;
  }

  private static Entry firstState(List<Entry> mine, String state) {
    for (Entry e : mine) {
      if (ActivityEntries.TRANSITION.equals(e.type()) && state.equals(e.text("state"))) {
        return e;
      }
    }
    return null;
  }

  private static void addIfPresent(Set<String> set, String value) {
    if (value != null) {
      set.add(value);
    }
  }
}
