package dev.tally.core.gate;

/**
 * How the gate sees a call without acting on it: for {@code tally fingerprint} and for operators
 * checking why two calls did or did not match.
 *
 * @param actor the resolved actor
 * @param toolClass the contract class ({@code read_only} calls are still described)
 * @param canonicalRecord the RFC 8785 canonical action record (UTF-8; secrets already replaced)
 * @param fingerprint {@code hmac-sha256:<keyId>:<hex>}
 * @param matchedBy {@code idempotency_key} or {@code fingerprint}
 * @param summary the redacted argument summary
 */
public record Description(
    String actor,
    String toolClass,
    byte[] canonicalRecord,
    String fingerprint,
    String matchedBy,
    String summary) {

  @Override
  public boolean equals(Object o) {
    return o instanceof Description d
        && d.fingerprint.equals(fingerprint)
        && d.actor.equals(actor)
        && java.util.Arrays.equals(d.canonicalRecord, canonicalRecord);
  }

  @Override
  public int hashCode() {
    return fingerprint.hashCode();
  }

  @Override
  public String toString() {
    return "Description[" + fingerprint + "]";
  }
}
