package dev.tally.core.audit;

import dev.tally.core.audit.JournalEntries.Entry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Renders the activity journal for a person during an incident (the library behind {@code tally
 * audit show DIR [--execution ID]}). With an execution id: its header, its timeline (transitions
 * and answered retries, with the time between steps) and findings that answer the usual questions
 * (see {@link TimelineFindings}). Without: one line per execution. Reads leniently and checks
 * nothing; integrity is {@link AuditVerifier}'s job.
 */
public final class AuditTimeline {
  private static final String TRANSITION = ActivityEntries.TRANSITION;
  private static final String RETRY = ActivityEntries.RETRY;
  private static final String STATUS_LOOKUP = ActivityEntries.STATUS_LOOKUP;

  private AuditTimeline() {}

  /** The text for {@code tally audit show}; throws {@link UncheckedIOException} if unreadable. */
  public static String render(Path dir, Optional<String> executionId) {
    JournalEntries activity;
    JournalEntries sessions;
    try {
      activity = JournalEntries.read(dir.resolve(AuditFiles.ACTIVITY));
      sessions = JournalEntries.read(dir.resolve(AuditFiles.SESSIONS));
    } catch (IOException e) {
      throw new UncheckedIOException(dir + ": cannot read the audit journals", e);
    }
    Map<String, List<Entry>> byExecution = new LinkedHashMap<>();
    List<Entry> controls = new ArrayList<>();
    for (Entry e : activity.entries()) {
      String id = e.text("execution");
      if (id != null
          && (TRANSITION.equals(e.type())
              || RETRY.equals(e.type())
              || STATUS_LOOKUP.equals(e.type()))) {
        byExecution.computeIfAbsent(id, k -> new ArrayList<>()).add(e);
      } else if (ActivityEntries.CONTROL.equals(e.type())) {
        controls.add(e);
      }
    }
    StringBuilder out = new StringBuilder();
    if (executionId.isPresent()) {
      String id = executionId.get();
      List<Entry> mine = byExecution.get(id);
      if (mine == null) {
        out.append("No entries for execution ")
            .append(Text.clean(id, 64))
            .append(" in ")
            .append(dir.resolve(AuditFiles.ACTIVITY))
            .append('\n');
      } else {
        detail(out, id, mine, byExecution, latestSessions(sessions));
      }
    } else {
      overview(out, byExecution);
      controls(out, controls);
    }
    int unreadable = activity.unreadable() + sessions.unreadable();
    if (unreadable > 0) {
      out.append("\nNote: ")
          .append(unreadable)
          .append(unreadable == 1 ? " line" : " lines")
          .append(" could not be read; run 'tally audit verify'.\n");
    }
    return out.toString();
  }

  private static void overview(StringBuilder out, Map<String, List<Entry>> byExecution) {
    if (byExecution.isEmpty()) {
      out.append("No executions recorded.\n");
      return;
    }
    Map<String, Integer> perFingerprint = new HashMap<>();
    for (List<Entry> es : byExecution.values()) {
      String fingerprint = last(es, "fingerprint");
      if (fingerprint != null) {
        perFingerprint.merge(fingerprint, 1, Integer::sum);
      }
    }
    out.append(byExecution.size())
        .append(byExecution.size() == 1 ? " execution" : " executions")
        .append(" (first seen, id, tool, actor, last state):\n");
    for (Map.Entry<String, List<Entry>> x : byExecution.entrySet()) {
      List<Entry> es = x.getValue();
      out.append(columnTime(es.get(0).at()))
          .append("  ")
          .append(x.getKey())
          .append("  ")
          .append(orDash(last(es, "tool")))
          .append("  ")
          .append(orDash(last(es, "actor")))
          .append("  ")
          .append(orDash(lastState(es)));
      String status = last(es, "target_status");
      if (status != null) {
        out.append("  HTTP ").append(status);
      }
      String rpc = last(es, "rpc_error");
      if (rpc != null) {
        out.append("  JSON-RPC error ").append(rpc);
      }
      long retries = es.stream().filter(e -> RETRY.equals(e.type())).count();
      if (retries > 0) {
        out.append("  ").append(retries).append(retries == 1 ? " retry" : " retries");
      }
      String fingerprint = last(es, "fingerprint");
      int same = fingerprint == null ? 1 : perFingerprint.get(fingerprint);
      if (same > 1) {
        out.append("  [fingerprint shared by ").append(same).append(" executions]");
      }
      out.append('\n');
    }
  }

  /** The operator's write-control changes (issue 18), oldest first. */
  private static void controls(StringBuilder out, List<Entry> controls) {
    if (controls.isEmpty()) {
      return;
    }
    out.append("\nWrite control (time, change, for):\n");
    for (Entry e : controls) {
      String event = orDash(e.text("event"));
      String what = "write_switch".equals(event) ? "writes " + orDash(e.text("position")) : event;
      String actor = e.text("actor");
      out.append(columnTime(e.at()))
          .append("  ")
          .append(what)
          .append("  ")
          .append(actor == null ? "everyone" : actor)
          .append('\n');
    }
  }

  private static void detail(
      StringBuilder out,
      String id,
      List<Entry> mine,
      Map<String, List<Entry>> byExecution,
      Map<String, Entry> sessions) {
    out.append("Execution ").append(id).append('\n');
    field(out, "tool", orDash(last(mine, "tool")) + " (class " + orDash(last(mine, "class")) + ")");
    field(out, "actor", last(mine, "actor"));
    field(out, "target", last(mine, "target"));
    field(out, "fingerprint", last(mine, "fingerprint"));
    field(out, "scope", last(mine, "scope"));
    field(out, "arguments", last(mine, "summary"));
    out.append("\nTimeline\n");
    Instant previous = null;
    Entry previousTransition = null;
    for (Entry e : mine) {
      Instant at = e.at();
      String what =
          RETRY.equals(e.type())
              ? "retry: " + orDash(e.text("outcome"))
              : STATUS_LOOKUP.equals(e.type())
                  ? "status lookup: " + orDash(e.text("answer"))
                  : orDash(e.text("state"));
      List<String> notes = new ArrayList<>();
      if (previous != null && at != null) {
        notes.add("+" + Duration.between(previous, at).toMillis() + " ms");
      }
      TimelineFindings.describe(e, previousTransition, sessions, notes);
      String line = "  " + pad(columnTime(at), 32) + pad(what, 26) + String.join(", ", notes);
      out.append(line.stripTrailing()).append('\n');
      if (at != null) {
        previous = at;
      }
      if (TRANSITION.equals(e.type())) {
        previousTransition = e;
      }
    }
    out.append("\nFindings\n");
    List<String[]> findings = TimelineFindings.of(id, mine, byExecution, sessions);
    for (String[] f : findings) {
      field(out, f[0], f[1]);
    }
  }

  private static Map<String, Entry> latestSessions(JournalEntries sessions) {
    Map<String, Entry> latest = new HashMap<>();
    for (Entry e : sessions.entries()) {
      String ref = e.text("session");
      if (ref != null && SessionTracker.SESSION.equals(e.type())) {
        latest.put(ref, e);
      }
    }
    return latest;
  }

  /** The last non-null value of {@code field} across {@code es}, as text. */
  static String last(List<Entry> es, String field) {
    String v = null;
    for (Entry e : es) {
      String t = e.text(field);
      if (t != null) {
        v = t;
      }
    }
    return v;
  }

  static String lastState(List<Entry> es) {
    String s = null;
    for (Entry e : es) {
      if (TRANSITION.equals(e.type()) && e.text("state") != null) {
        s = e.text("state");
      }
    }
    return s;
  }

  static String time(Instant at) {
    return at == null ? "(no time)" : at.toString();
  }

  /**
   * A timestamp for a column: all nine fraction digits, so columns line up ({@link
   * Instant#toString()} drops trailing zero digits: {@code .665876Z} beside {@code .354599144Z}).
   */
  static String columnTime(Instant at) {
    return at == null ? "(no time)" : COLUMN_TIME.format(at);
  }

  private static final DateTimeFormatter COLUMN_TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'", Locale.ROOT)
          .withZone(ZoneOffset.UTC);

  private static String orDash(String s) {
    return s == null ? "-" : s;
  }

  private static String pad(String s, int width) {
    StringBuilder sb = new StringBuilder(s);
    do {
      sb.append(' ');
    } while (sb.length() < width);
    return sb.toString();
  }

  private static void field(StringBuilder out, String name, String value) {
    if (value != null) {
      out.append("  ").append(pad(name, 18)).append(value).append('\n');
    }
  }
}
