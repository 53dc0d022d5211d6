package dev.tally.store.postgres;

import dev.tally.core.execution.IllegalTransitionException;
import dev.tally.core.store.StoreException;
import io.vertx.pgclient.PgException;
import java.util.Set;

/**
 * Turns what the PostgreSQL client failed with into a {@link StoreException} whose code says
 * whether to retry. Connection trouble, timeouts and server states that pass (shutdown, recovery,
 * too many connections, serialization failures) are {@link StoreException.Code#UNAVAILABLE}; a
 * statement the server refused for any other reason is {@link StoreException.Code#CORRUPT}. The
 * message names the server and the SQLSTATE, never the password: the password is cut from any text
 * taken from a cause, and a cause whose messages contain it is not attached.
 */
final class Failures {
  /** SQLSTATE classes and codes that mean "the database cannot serve now; try again". */
  private static final Set<String> UNAVAILABLE_CLASSES = Set.of("08", "53", "57", "58", "40");

  private static final Set<String> UNAVAILABLE_CODES = Set.of("25006", "55P03", "55006");

  private final PostgresTarget target;

  Failures(PostgresTarget target) {
    this.target = target;
  }

  /** Whether {@code t} means the database is unreachable or not serving right now. */
  static boolean isOutage(Throwable t) {
    return t instanceof StoreException se && se.code() == StoreException.Code.UNAVAILABLE;
  }

  /** The store exception for {@code t} (returned as is if it already is one). */
  RuntimeException map(Throwable t) {
    if (t instanceof StoreException || t instanceof IllegalTransitionException) {
      return (RuntimeException) t;
    }
    if (t instanceof PgException pg) {
      String state = pg.getSqlState() == null ? "" : pg.getSqlState();
      if (state.equals("23505")) {
        return new StoreException(
            StoreException.Code.CORRUPT,
            "PostgreSQL store "
                + target.describe()
                + ": a row with this id already exists (SQLSTATE 23505)",
            safeCause(t));
      }
      boolean outage =
          state.length() == 5
              && (UNAVAILABLE_CLASSES.contains(state.substring(0, 2))
                  || UNAVAILABLE_CODES.contains(state));
      if (outage) {
        return unavailable("the server answered SQLSTATE " + state + " " + clean(pg), t);
      }
      if (state.equals("28P01") || state.equals("28000")) {
        return unavailable(
            "authentication failed (SQLSTATE " + state + "); check the user and password", t);
      }
      return new StoreException(
          StoreException.Code.CORRUPT,
          "PostgreSQL store "
              + target.describe()
              + ": the server refused a statement (SQLSTATE "
              + state
              + ") "
              + clean(pg),
          safeCause(t));
    }
    if (t instanceof IllegalArgumentException || t instanceof NullPointerException) {
      return new StoreException(
          StoreException.Code.CORRUPT,
          "PostgreSQL store " + target.describe() + ": a stored row is malformed: " + text(t),
          safeCause(t));
    }
    return unavailable(t.getClass().getSimpleName() + ": " + text(t), t);
  }

  /** A retryable outage error with a message that says nothing was reported as done. */
  StoreException unavailable(String reason, Throwable cause) {
    return new StoreException(
        StoreException.Code.UNAVAILABLE,
        "PostgreSQL store "
            + target.describe()
            + " is unavailable ("
            + reason
            + "); the operation did not complete, retry later",
        safeCause(cause));
  }

  private String clean(PgException pg) {
    String m = pg.getErrorMessage() == null ? "" : pg.getErrorMessage();
    return "(" + scrub(m) + ")";
  }

  private String text(Throwable t) {
    String m = t.getMessage();
    return m == null ? "no message" : scrub(m);
  }

  private String scrub(String s) {
    String p = target.password();
    String out = p == null || p.isEmpty() ? s : s.replace(p, "<redacted>");
    return out.length() > 300 ? out.substring(0, 300) + "…" : out;
  }

  private Throwable safeCause(Throwable cause) {
    String p = target.password();
    if (cause == null || p == null || p.isEmpty()) {
      return cause;
    }
    for (Throwable c = cause; c != null; c = c.getCause()) {
      if (String.valueOf(c.getMessage()).contains(p) || String.valueOf(c).contains(p)) {
        return null;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return cause;
  }
}
