package dev.tally.core.mcp;

import java.util.List;

/**
 * Read access to request headers (and the verified TLS client identity), independent of the
 * transport. Names are matched case-insensitively by the implementation; an absent header is {@code
 * null}.
 */
@FunctionalInterface
public interface Headers {
  /** The first value of header {@code name}, or {@code null}. */
  String get(String name);

  /**
   * Every value of header {@code name}, in request order (empty when absent). Adapters override it;
   * the default sees one value at most.
   */
  default List<String> all(String name) {
    String v = get(name);
    return v == null ? List.of() : List.of(v);
  }

  /**
   * The subject (RFC 2253) of the TLS client certificate the transport verified for this request,
   * or {@code null} without mutual TLS.
   */
  default String clientSubject() {
    return null;
  }

  /** No headers at all. */
  Headers NONE = name -> null;
}
