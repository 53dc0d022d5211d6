package dev.tally.core.gate;

import dev.tally.core.audit.SessionRef;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.fingerprint.Fingerprint;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * Everything the gate derived from one call before touching the store: actor, contract, canonical
 * record bytes, fingerprint, the match key a retry is found by, and the MCP session or agent run
 * the call came in ({@code session}, null if neither; for the audit journals only, never part of
 * the intent). {@code older} holds the same call as it was identified under each older key of the
 * ring (empty without a rotation in progress): a retry across a rotation is matched by those.
 */
record Identity(
    String actor,
    String tool,
    ToolContract contract,
    String idempotencyKey,
    String intentScope,
    byte[] canonical,
    Fingerprint fingerprint,
    String summary,
    SessionRef session,
    List<Alias> older) {

  /**
   * The call as identified while an older key was active: its actor (a {@code token_hash} actor is
   * keyed), fingerprint and match key.
   */
  record Alias(String actor, Fingerprint fingerprint, String matchKey) {}

  Identity {
    older = List.copyOf(older);
  }

  /**
   * Whether {@code stored}, the fingerprint of an execution, is this call's fingerprint under the
   * key it names (active or older).
   */
  boolean sameFingerprint(Fingerprint stored) {
    if (stored.keyId().equals(fingerprint.keyId())) {
      return stored.matches(fingerprint);
    }
    for (Alias a : older) {
      if (stored.keyId().equals(a.fingerprint().keyId())) {
        return stored.matches(a.fingerprint());
      }
    }
    return false;
  }

  MatchKind kind() {
    return idempotencyKey != null ? MatchKind.IDEMPOTENCY_KEY : MatchKind.FINGERPRINT;
  }

  /**
   * The match key. With an idempotency key it is scoped per actor and tool (ARCHITECTURE.md §6 step
   * 3) and independent of the HMAC key; without one it is the fingerprint, which already covers
   * actor, tool, arguments and intent scope (step 4).
   */
  String matchKey() {
    return idempotencyKey != null
        ? keyMatchKey(actor, tool, idempotencyKey)
        : fingerprintMatchKey(fingerprint);
  }

  static String fingerprintMatchKey(Fingerprint fp) {
    return "f:" + fp.render();
  }

  static String keyMatchKey(String actor, String tool, String key) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      // Length-prefixed so that no two (actor, tool, key) triples share an encoding.
      for (String part : new String[] {actor, tool, key}) {
        byte[] b = part.getBytes(StandardCharsets.UTF_8);
        sha.update((byte) (b.length >>> 24));
        sha.update((byte) (b.length >>> 16));
        sha.update((byte) (b.length >>> 8));
        sha.update((byte) b.length);
        sha.update(b);
      }
      return "k:" + HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 unavailable", e);
    }
  }

  @Override
  public String toString() {
    return "Identity[" + tool + " " + fingerprint + "]";
  }
}
