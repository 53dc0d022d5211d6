package dev.tally.core.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.mcp.TallyError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;

/**
 * The MRTR {@code requestState} Tally puts on the input-required answer that offers a pending
 * confirmation as a URL-mode elicitation (issue 18), and its verification when the client echoes
 * it. The state is attacker-controlled input (MCP 2026-07-28, basic/patterns/mrtr, "Server
 * Requirements"), so it is integrity-protected with the fingerprint key ring and binds the actor,
 * the execution, the tool, the call's fingerprint and an expiry; anything that does not verify is
 * refused with a code, never decided on.
 *
 * <p>Format: {@code tally1.<payload>.<keyId>.<tag>}, {@code payload} the base64url (no padding) of
 * {@code {"v":1,"e":<execution id>,"t":<tool>,"f":<fingerprint>,"x":<expiry, epoch seconds>}},
 * {@code tag} the base64url of {@link KeyRing#tag} under {@code keyId} over the payload's bytes, a
 * 0x00 and the actor (domain {@value #DOMAIN}). The actor is bound but not carried: a state
 * presented by anyone else fails verification exactly as an altered one does. Older keys of the
 * ring still verify during a rotation. The payload is parsed only once its tag matched.
 */
public final class RequestStates {
  /** What every state of Tally's starts with; a state without it is not Tally's. */
  public static final String PREFIX = "tally1.";

  /**
   * How long past the pending call's own expiry its state still verifies, so that a client that
   * re-sends just after the expiry is told that the action expired rather than that its state did.
   */
  public static final Duration GRACE = Duration.ofMinutes(5);

  /** The longest state that is read at all. */
  static final int MAX_LENGTH = 2048;

  static final String DOMAIN = "tally-request-state";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder UNB64 = Base64.getUrlDecoder();

  /** What a verified state says: the call it was made for, and until when it holds. */
  public record Claims(ExecutionId execution, String tool, String fingerprint, Instant expiresAt) {
    public Claims {
      Objects.requireNonNull(execution, "execution");
      Objects.requireNonNull(tool, "tool");
      Objects.requireNonNull(fingerprint, "fingerprint");
      Objects.requireNonNull(expiresAt, "expiresAt");
    }

    /** Whether {@code e} is the execution this state was made for (same id and fingerprint). */
    public boolean describes(Execution e) {
      return e.id().equals(execution) && fingerprint.equals(e.fingerprint());
    }
  }

  /** The outcome of {@link #verify}: a value, never an exception. */
  public sealed interface Verified {}

  /** The state verified. */
  public record Valid(Claims claims) implements Verified {}

  /** The state did not verify: {@code error} says why, without echoing it. */
  public record Invalid(TallyError error) implements Verified {}

  static final TallyError TAMPERED =
      TallyError.of(
          TallyError.Code.REQUEST_STATE_INVALID,
          "params.requestState: not a state Tally made for this caller and this call; nothing was"
              + " done. Re-send the call without requestState and inputResponses");
  static final TallyError EXPIRED =
      TallyError.of(
          TallyError.Code.REQUEST_STATE_EXPIRED,
          "params.requestState: expired; nothing was done. Re-send the call without requestState"
              + " and inputResponses");

  private final KeyRing keys;

  private RequestStates(KeyRing keys) {
    this.keys = keys;
  }

  /** States signed with {@code keys}' active key and verified under any of its keys. */
  public static RequestStates with(KeyRing keys) {
    return new RequestStates(Objects.requireNonNull(keys, "keys"));
  }

  /** Whether {@code state} claims to be one of Tally's (then it must verify). */
  public static boolean isTally(String state) {
    return state != null && state.startsWith(PREFIX);
  }

  /** The state for {@code actor}'s pending {@code e}, holding until {@code expiresAt}. */
  public String issue(String actor, Execution e, Instant expiresAt) {
    return issue(actor, new Claims(e.id(), e.tool(), e.fingerprint(), expiresAt));
  }

  /** The state carrying {@code claims} for {@code actor}. */
  public String issue(String actor, Claims claims) {
    ObjectNode p = JSON.createObjectNode();
    p.put("v", 1);
    p.put("e", claims.execution().value());
    p.put("t", claims.tool());
    p.put("f", claims.fingerprint());
    p.put("x", claims.expiresAt().getEpochSecond());
    byte[] payload;
    try {
      payload = JSON.writeValueAsBytes(p);
    } catch (IOException e) {
      throw new IllegalStateException("the request state could not be written", e);
    }
    HmacKey key = keys.active();
    return PREFIX
        + B64.encodeToString(payload)
        + '.'
        + key.id()
        + '.'
        + B64.encodeToString(keys.tag(key, DOMAIN, signed(payload, actor)));
  }

  /**
   * Verifies {@code state} as presented by {@code actor} on a call of {@code tool} at {@code now}.
   * Anything that is not a well-formed state signed for that actor and tool under a key of the ring
   * is {@link TallyError.Code#REQUEST_STATE_INVALID}; a good state past its expiry is {@link
   * TallyError.Code#REQUEST_STATE_EXPIRED}.
   */
  public Verified verify(String state, String actor, String tool, Instant now) {
    if (!isTally(state) || state.length() > MAX_LENGTH || actor == null) {
      return new Invalid(TAMPERED);
    }
    String[] parts = state.substring(PREFIX.length()).split("\\.", -1);
    if (parts.length != 3) {
      return new Invalid(TAMPERED);
    }
    byte[] payload;
    byte[] tag;
    try {
      payload = UNB64.decode(parts[0]);
      tag = UNB64.decode(parts[2]);
    } catch (IllegalArgumentException e) {
      return new Invalid(TAMPERED);
    }
    // Only the canonical encoding: a decoder ignores the spare bits of the last character.
    if (!B64.encodeToString(payload).equals(parts[0])
        || !B64.encodeToString(tag).equals(parts[2])) {
      return new Invalid(TAMPERED);
    }
    Optional<HmacKey> key = keys.key(parts[1]);
    if (key.isEmpty()
        || !MessageDigest.isEqual(tag, keys.tag(key.get(), DOMAIN, signed(payload, actor)))) {
      return new Invalid(TAMPERED);
    }
    Optional<Claims> claims = parse(payload);
    if (claims.isEmpty() || !claims.get().tool().equals(tool)) {
      return new Invalid(TAMPERED);
    }
    if (!now.isBefore(claims.get().expiresAt())) {
      return new Invalid(EXPIRED);
    }
    return new Valid(claims.get());
  }

  private static Optional<Claims> parse(byte[] payload) {
    try {
      JsonNode p = JSON.readTree(payload);
      if (p == null
          || p.path("v").asInt() != 1
          || !p.path("e").isTextual()
          || !ExecutionId.isValid(p.path("e").textValue())
          || !p.path("t").isTextual()
          || !p.path("f").isTextual()
          || !p.path("x").canConvertToLong()) {
        return Optional.empty();
      }
      return Optional.of(
          new Claims(
              ExecutionId.parse(p.path("e").textValue()),
              p.path("t").textValue(),
              p.path("f").textValue(),
              Instant.ofEpochSecond(p.path("x").longValue())));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static byte[] signed(byte[] payload, String actor) {
    byte[] a = (actor == null ? "" : actor).getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[payload.length + 1 + a.length];
    System.arraycopy(payload, 0, out, 0, payload.length);
    System.arraycopy(a, 0, out, payload.length + 1, a.length);
    return out;
  }
}
