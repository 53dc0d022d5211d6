package dev.tally.core.mcp;

/**
 * Read access to request headers, independent of the transport. Names are matched
 * case-insensitively by the implementation; an absent header is {@code null}.
 */
@FunctionalInterface
public interface Headers {
  /** The first value of header {@code name}, or {@code null}. */
  String get(String name);

  /** No headers at all. */
  Headers NONE = name -> null;
}
