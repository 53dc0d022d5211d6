package dev.tally.core.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.contract.FingerprintRules;
import java.util.function.Function;

/**
 * Normalizes tool-call arguments for fingerprinting under a contract's {@link FingerprintRules}.
 *
 * <p>STUB: implemented in the canonical work package.
 */
public final class ArgumentNormalizer {
  /** Default name of the idempotency-key argument. */
  public static final String DEFAULT_IDEMPOTENCY_ARGUMENT = "idempotencyKey";

  private final String idempotencyArgument;
  private final Function<byte[], String> secretReference;
  private final Jcs jcs;

  private ArgumentNormalizer(
      String idempotencyArgument, Function<byte[], String> secretReference, Jcs jcs) {
    this.idempotencyArgument = idempotencyArgument;
    this.secretReference = secretReference;
    this.jcs = jcs;
  }

  /**
   * @param idempotencyArgument name of the top-level argument that carries an idempotency key
   * @param secretReference maps a secret's canonical bytes to a keyed reference
   * @param jcs the canonicalizer (limits and validation)
   */
  public static ArgumentNormalizer create(
      String idempotencyArgument, Function<byte[], String> secretReference, Jcs jcs) {
    return new ArgumentNormalizer(idempotencyArgument, secretReference, jcs);
  }

  /** The normalized copy of {@code arguments} (never mutates the input). */
  public JsonNode normalize(JsonNode arguments, FingerprintRules rules) {
    throw new UnsupportedOperationException("stub");
  }

  /** A redacted shape summary of {@code arguments}: keys and types, never values. */
  public String summarize(JsonNode arguments, FingerprintRules rules) {
    throw new UnsupportedOperationException("stub");
  }

  String idempotencyArgument() {
    return idempotencyArgument;
  }

  Function<byte[], String> secretReference() {
    return secretReference;
  }

  Jcs jcs() {
    return jcs;
  }
}
