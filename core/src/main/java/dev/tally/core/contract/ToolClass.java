package dev.tally.core.contract;

import java.util.Locale;

/** What a tool's side effect allows after an unknown outcome (ARCHITECTURE.md §4). */
public enum ToolClass {
  /** No side effect: passes through, no record. */
  READ_ONLY,
  /** The upstream honours an idempotency key: re-dispatch with the same execution id. */
  KEYED,
  /** The outcome can be looked up with a status tool, then decided. */
  STATUS_CHECK,
  /** None of the above (the default): never re-dispatched after an unknown outcome. */
  IRREVERSIBLE;

  // Computed once: the journals, the audit trail and the admin API ask for it on every record.
  private final String wireName = name().toLowerCase(Locale.ROOT);

  /** The name used in configuration and on the wire ({@code read_only}). */
  public String wireName() {
    return wireName;
  }

  /** Parses a {@link #wireName()}; returns {@code null} when it names no class. */
  public static ToolClass fromWireName(String name) {
    for (ToolClass c : values()) {
      if (c.wireName().equals(name)) {
        return c;
      }
    }
    return null;
  }
}
