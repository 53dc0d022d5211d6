package dev.tally.core.audit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.canonical.Jcs;

/**
 * Turns a JSON tree into the bytes an audit entry's hash covers: RFC 8785 canonical JSON (UTF-8).
 * Implementations are thread-safe and deterministic.
 *
 * <p>Audit entries written by Tally contain only strings free of control characters and integers
 * below 2<sup>53</sup> (see {@link AuditJournals}); for such trees any writer that sorts object
 * keys by UTF-16 code units, writes integers in decimal and leaves non-ASCII characters unescaped
 * produces exactly the RFC 8785 bytes. Entries from a later format version may hold other values,
 * so the verifier uses {@link #jcs()} in production.
 */
@FunctionalInterface
public interface Canonicalizer {

  /** The canonical UTF-8 bytes of {@code node}; throws if the tree cannot be canonicalized. */
  byte[] canonicalize(JsonNode node);

  /** The production binding: {@link Jcs#canonicalize(JsonNode)}. */
  static Canonicalizer jcs() {
    Jcs jcs = Jcs.create();
    return jcs::canonicalize;
  }
}
