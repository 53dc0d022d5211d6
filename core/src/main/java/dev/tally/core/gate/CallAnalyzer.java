package dev.tally.core.gate;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.actor.ActorResolver;
import dev.tally.core.audit.SessionRef;
import dev.tally.core.canonical.ActionRecord;
import dev.tally.core.canonical.ArgumentNormalizer;
import dev.tally.core.canonical.CanonicalizationException;
import dev.tally.core.canonical.Jcs;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.execution.Execution;
import dev.tally.core.fingerprint.Fingerprint;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.mcp.McpNames;
import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.core.mcp.TallyError;
import java.util.ArrayList;
import java.util.List;

/**
 * Derives a call's {@link Identity} (ARCHITECTURE.md §6 step 1 and §3): actor, idempotency key,
 * intent scope, normalized arguments, canonical record and fingerprint. Pure; no store access.
 */
final class CallAnalyzer {
  private static final String RUN_PREFIX = "run:";

  /** Longest accepted idempotency key or intent scope, in characters. */
  static final int MAX_KEY_CHARS = 200;

  private final GateOptions options;
  private final KeyRing keys;
  private final ActorResolver actors;
  private final boolean sessions;
  private final Jcs jcs;
  private final ArgumentNormalizer normalizer;
  private final List<HmacKey> olderKeys;
  private final List<ArgumentNormalizer> olderNormalizers;

  /** {@code sessions}: derive each call's session (only an audited gate records them). */
  CallAnalyzer(GateOptions options, KeyRing keys, ActorResolver actors, Jcs jcs, boolean sessions) {
    this.sessions = sessions;
    this.options = options;
    this.keys = keys;
    this.actors = actors;
    this.jcs = jcs;
    this.normalizer =
        ArgumentNormalizer.create(options.idempotencyArgument(), keys::secretReference, jcs);
    this.olderKeys = keys.older();
    List<ArgumentNormalizer> n = new ArrayList<>(olderKeys.size());
    for (HmacKey k : olderKeys) {
      n.add(
          ArgumentNormalizer.create(
              options.idempotencyArgument(), v -> keys.secretReference(k, v), jcs));
    }
    this.olderNormalizers = List.copyOf(n);
  }

  /** The outcome of analysis: an identity, or the refusal to send instead. */
  sealed interface Result {}

  record Ok(Identity identity) implements Result {}

  record Refused(TallyError error) implements Result {}

  Result analyze(ToolCall call, ToolContract contract) {
    return analyze(call, contract, actors.resolve(call.headers()));
  }

  /** {@link #analyze(ToolCall, ToolContract)} for a caller whose actor is already resolved. */
  Result analyze(ToolCall call, ToolContract contract, String actor) {
    String key;
    String scope;
    try {
      key = idempotencyKey(call);
      scope = intentScope(call);
    } catch (InvalidInput e) {
      return new Refused(e.error);
    }
    try {
      JsonNode args = normalizer.normalize(call.arguments(), contract.fingerprint());
      byte[] canonical = canonical(actor, call, args, scope);
      String summary = normalizer.summarize(call.arguments(), contract.fingerprint());
      return new Ok(
          new Identity(
              actor,
              call.tool(),
              contract,
              key,
              scope,
              canonical,
              keys.fingerprint(canonical),
              summary,
              sessions ? sessionOf(call, scope) : null,
              olderKeys.isEmpty() ? List.of() : aliases(call, contract, key, scope)));
    } catch (CanonicalizationException e) {
      return new Refused(
          TallyError.of(
              TallyError.Code.INVALID_ARGUMENTS,
              "params.arguments" + e.pointer() + ": " + e.getMessage()));
    }
  }

  /**
   * The call under each older key: the actor ({@code token_hash} actors are keyed), the secret
   * references in the arguments and so the canonical record, fingerprint and match key differ.
   */
  private List<Identity.Alias> aliases(
      ToolCall call, ToolContract contract, String key, String scope) {
    List<Identity.Alias> out = new ArrayList<>(olderKeys.size());
    for (int i = 0; i < olderKeys.size(); i++) {
      HmacKey k = olderKeys.get(i);
      String actor = actors.resolveUnder(call.headers(), k);
      JsonNode args = olderNormalizers.get(i).normalize(call.arguments(), contract.fingerprint());
      byte[] canonical = canonical(actor, call, args, scope);
      Fingerprint fp = keys.fingerprint(k, canonical);
      out.add(
          new Identity.Alias(
              actor,
              fp,
              key != null
                  ? Identity.keyMatchKey(actor, call.tool(), key)
                  : Identity.fingerprintMatchKey(fp)));
    }
    return out;
  }

  /** The canonical bytes of the call's action record (ARCHITECTURE.md §3). */
  private byte[] canonical(String actor, ToolCall call, JsonNode args, String scope) {
    return new ActionRecord(
            actor,
            call.tool(),
            ActionRecord.CHANNEL_MCP,
            call.target(),
            options.credentialRef(),
            args,
            scope)
        .canonicalBytes(jcs);
  }

  private String idempotencyKey(ToolCall call) throws InvalidInput {
    String fromHeader = call.headers().get(options.idempotencyHeader());
    String fromArgument = null;
    JsonNode args = call.arguments();
    if (args != null && args.has(options.idempotencyArgument())) {
      JsonNode v = args.get(options.idempotencyArgument());
      if (!v.isTextual()) {
        throw new InvalidInput(
            TallyError.Code.INVALID_IDEMPOTENCY_KEY,
            "params.arguments."
                + options.idempotencyArgument()
                + ": a "
                + v.getNodeType().name().toLowerCase(java.util.Locale.ROOT)
                + " (expected: a string of 1-"
                + MAX_KEY_CHARS
                + " characters)");
      }
      fromArgument = v.textValue();
    }
    if (fromHeader != null && fromArgument != null && !fromHeader.equals(fromArgument)) {
      throw new InvalidInput(
          TallyError.Code.INVALID_IDEMPOTENCY_KEY,
          options.idempotencyHeader()
              + " header and params.arguments."
              + options.idempotencyArgument()
              + " differ (expected: the same key, or only one of them)");
    }
    if (fromHeader != null) {
      checkToken(fromHeader, TallyError.Code.INVALID_IDEMPOTENCY_KEY, "idempotency key");
      return fromHeader;
    }
    if (fromArgument != null) {
      checkText(
          fromArgument,
          TallyError.Code.INVALID_IDEMPOTENCY_KEY,
          "params.arguments." + options.idempotencyArgument());
    }
    return fromArgument;
  }

  /**
   * The MCP session of the call ({@code Mcp-Session-Id}, digested by {@link SessionRef}), else its
   * agent run (an explicit intent scope), else null.
   */
  static SessionRef sessionOf(ToolCall call, String scope) {
    String mcp = call.headers().get(HeaderNames.SESSION_ID);
    if (mcp != null && !mcp.isEmpty()) {
      return SessionRef.mcpSession(mcp);
    }
    return scope.startsWith(RUN_PREFIX)
        ? SessionRef.run(scope.substring(RUN_PREFIX.length()))
        : null;
  }

  private String intentScope(ToolCall call) throws InvalidInput {
    String scope = call.headers().get(options.intentScopeHeader());
    if (scope == null && call.meta() != null) {
      JsonNode v = call.meta().get(McpNames.MetaKeys.INTENT_SCOPE);
      if (v != null && !v.isNull()) {
        if (!v.isTextual()) {
          throw new InvalidInput(
              TallyError.Code.INVALID_INTENT_SCOPE,
              "params._meta[\""
                  + McpNames.MetaKeys.INTENT_SCOPE
                  + "\"]: expected a string of 1-"
                  + MAX_KEY_CHARS
                  + " characters");
        }
        scope = v.textValue();
      }
    }
    if (scope == null) {
      return Execution.WINDOW_SCOPE;
    }
    checkToken(scope, TallyError.Code.INVALID_INTENT_SCOPE, "intent scope");
    return RUN_PREFIX + scope;
  }

  /**
   * A key in an argument: any text of 1–200 characters (Unicode code points), only not an unpaired
   * surrogate, which is no text. Only its digest is kept, so no character can reach a log.
   */
  private static void checkText(String v, TallyError.Code code, String what) throws InvalidInput {
    int n = v.codePointCount(0, v.length());
    if (n == 0 || n > MAX_KEY_CHARS) {
      throw new InvalidInput(
          code, what + ": " + n + " characters (expected: 1-" + MAX_KEY_CHARS + ")");
    }
    for (int i = 0; i < v.length(); ) {
      int cp = v.codePointAt(i);
      if (Character.getType(cp) == Character.SURROGATE) {
        throw new InvalidInput(
            code, what + ": an unpaired surrogate at index " + i + " (expected: valid text)");
      }
      i += Character.charCount(cp);
    }
  }

  /**
   * A value in a header: 1–200 visible ASCII characters, what an HTTP field value carries the same
   * way through every proxy and both adapters.
   */
  private static void checkToken(String v, TallyError.Code code, String what) throws InvalidInput {
    if (v.isEmpty() || v.length() > MAX_KEY_CHARS) {
      throw new InvalidInput(
          code, what + ": " + v.length() + " characters (expected: 1-" + MAX_KEY_CHARS + ")");
    }
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c < 0x21 || c > 0x7e) {
        throw new InvalidInput(
            code,
            what
                + ": character at index "
                + i
                + " is not visible ASCII (expected: characters 0x21-0x7E)");
      }
    }
  }

  /** Internal signal for a refused input; never escapes this class. */
  private static final class InvalidInput extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient TallyError error;

    InvalidInput(TallyError.Code code, String message) {
      super(message, null, false, false);
      this.error = TallyError.of(code, message);
    }
  }
}
