package dev.tally.core.audit;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Objects;

/**
 * An agent run or MCP session, as the journals name it. An {@code Mcp-Session-Id} lets whoever
 * holds it speak in that session, so it is never written: the journals carry {@code mcp:} and the
 * first 128 bits of its SHA-256 in hex ({@link #journalValue()}); an operator holding the raw id
 * computes the same value with {@link #mcpSession(String)}. A run id (the explicit intent scope) is
 * not a credential and is written as {@code run:<id>}.
 */
public final class SessionRef {

  /** What kind of grouping the reference names. */
  public enum Kind {
    /** An MCP session ({@code Mcp-Session-Id}, protocol versions up to 2025-11-25). */
    MCP_SESSION,
    /** An explicit agent run id sent in {@code _meta} or a header. */
    RUN;

    /** The name written to the journal ({@code mcp_session}). */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private static final int MAX_RUN_ID = 200;

  private final Kind kind;
  private final String journalValue;

  private SessionRef(Kind kind, String journalValue) {
    this.kind = kind;
    this.journalValue = journalValue;
  }

  /** The reference for an MCP session id; the raw id is digested here and not kept. */
  public static SessionRef mcpSession(String rawSessionId) {
    requireNonEmpty(rawSessionId, "MCP session id");
    byte[] digest = Hashes.sha256(rawSessionId.getBytes(StandardCharsets.UTF_8));
    return new SessionRef(Kind.MCP_SESSION, "mcp:" + Hashes.hex(digest).substring(0, 32));
  }

  /** The reference for an explicit run id (cleaned of control characters, at most 200 chars). */
  public static SessionRef run(String runId) {
    requireNonEmpty(runId, "run id");
    return new SessionRef(Kind.RUN, "run:" + Text.clean(runId, MAX_RUN_ID));
  }

  private static void requireNonEmpty(String value, String what) {
    Objects.requireNonNull(value, what);
    if (value.isEmpty()) {
      throw new IllegalArgumentException(what + " is empty");
    }
  }

  public Kind kind() {
    return kind;
  }

  /** The value written to the journals: {@code mcp:<32 hex>} or {@code run:<id>}. */
  public String journalValue() {
    return journalValue;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SessionRef other && journalValue.equals(other.journalValue);
  }

  @Override
  public int hashCode() {
    return journalValue.hashCode();
  }

  @Override
  public String toString() {
    return journalValue;
  }
}
