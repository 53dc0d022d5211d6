package dev.tally.core.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.tally.core.canonical.CanonicalizationException.Code;
import dev.tally.core.contract.FingerprintRules;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * Normalizes tool-call arguments for fingerprinting under a contract's {@link FingerprintRules}.
 * Thread-safe.
 *
 * <p>{@link #normalize} applies, in this order (ARCHITECTURE.md §3):
 *
 * <ol>
 *   <li>validation and a deep copy: the checks of {@link Jcs} (depth, lone surrogates, NaN and
 *       out-of-range numbers); numbers become what {@link Jcs#parse} would build, exact values
 *       kept;
 *   <li>delivery metadata dropped: top-level {@code _meta} and the idempotency-key argument;
 *   <li>{@code defaults} materialized where the path is absent (an explicit {@code null} is
 *       present), creating missing parent objects; a default below a scalar or a missing array
 *       element is skipped;
 *   <li>{@code include}, if non-empty: only those paths and their ancestors stay; array elements
 *       off every included path become {@code null} so included ones keep their positions;
 *   <li>{@code exclude}: those paths are removed (later array elements move up);
 *   <li>{@code secrets}: each present value is replaced by the string {@code
 *       secretReference(canonicalizeExact(value))}.
 * </ol>
 *
 * <p>Rule paths are RFC 6901 pointers into the arguments ({@code ~0} is {@code ~}, {@code ~1} is
 * {@code /}); a path that does not exist is ignored. A path that is not a pointer, or is the root
 * pointer {@code ""}, is a configuration error ({@link IllegalArgumentException}). Compiled rules
 * are cached per {@link FingerprintRules} instance.
 */
public final class ArgumentNormalizer {
  /** Default name of the idempotency-key argument. */
  public static final String DEFAULT_IDEMPOTENCY_ARGUMENT = "idempotencyKey";

  /** The top-level argument MCP reserves for request metadata. */
  static final String META = "_meta";

  private final String idempotencyArgument;
  private final Function<byte[], String> secretReference;
  private final Jcs jcs;
  private final Cache<FingerprintRules, CompiledRules> compiled =
      Caffeine.newBuilder().weakKeys().maximumSize(4096).build();
  private volatile CompiledRules last;

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
    Objects.requireNonNull(idempotencyArgument, "idempotencyArgument");
    Objects.requireNonNull(secretReference, "secretReference");
    Objects.requireNonNull(jcs, "jcs");
    return new ArgumentNormalizer(idempotencyArgument, secretReference, jcs);
  }

  /**
   * The normalized copy of {@code arguments} (never mutates the input). Null or missing arguments
   * are an empty object; anything else that is not an object is refused ({@link
   * CanonicalizationException} {@code MALFORMED} at {@code ""}).
   */
  public JsonNode normalize(JsonNode arguments, FingerprintRules rules) {
    Objects.requireNonNull(rules, "rules");
    ObjectNode args = copy(arguments);
    args.remove(META);
    args.remove(idempotencyArgument);
    CompiledRules c = compiled(rules);
    if (c.isEmpty()) {
      return args;
    }
    for (CompiledRules.Default d : c.defaults) {
      d.materialize(args);
    }
    JsonNode result = args;
    if (c.include != null) {
      JsonNode selected = c.include.select(args);
      result = selected == null ? JsonNodeFactory.instance.objectNode() : selected;
    }
    if (c.exclude != null) {
      c.exclude.remove(result);
    }
    if (c.secrets != null) {
      c.secrets.replace(result, this::secretReference);
    }
    return result;
  }

  /** A redacted shape summary of {@code arguments}: keys and types, never values. */
  public String summarize(JsonNode arguments, FingerprintRules rules) {
    Objects.requireNonNull(rules, "rules");
    return ShapeSummary.of(arguments, compiled(rules).secrets);
  }

  private ObjectNode copy(JsonNode arguments) {
    if (arguments == null || arguments.isNull() || arguments.isMissingNode()) {
      return JsonNodeFactory.instance.objectNode();
    }
    if (!arguments.isObject()) {
      throw new CanonicalizationException(
          Code.MALFORMED,
          "",
          "tool-call arguments must be a JSON object, not "
              + arguments.getNodeType().name().toLowerCase(Locale.ROOT));
    }
    return (ObjectNode) ValidatingCopy.of(arguments, jcs.limits().maxDepth(), "", 0);
  }

  private JsonNode secretReference(JsonNode value) {
    String reference = secretReference.apply(jcs.canonicalizeExact(value));
    return TextNode.valueOf(Objects.requireNonNull(reference, "secretReference returned null"));
  }

  private CompiledRules compiled(FingerprintRules rules) {
    CompiledRules c = last;
    if (c == null || c.source != rules) {
      c = compiled.get(rules, r -> CompiledRules.compile(r, jcs.limits().maxDepth()));
      last = c;
    }
    return c;
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
