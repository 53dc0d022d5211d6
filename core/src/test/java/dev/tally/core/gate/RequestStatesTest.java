package dev.tally.core.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.execution.ExecutionId;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.mcp.TallyError;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The {@code requestState} codec: what verifies, and every way a hostile client can fail it. */
class RequestStatesTest {
  static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");
  static final ExecutionId ID = new ExecutionId("act_01JZ0000000000000000000000");
  static final String FP = "hmac-sha256:k1:" + "ab".repeat(32);

  static HmacKey key(String id, int fill) {
    byte[] k = new byte[32];
    Arrays.fill(k, (byte) fill);
    return HmacKey.of(id, k);
  }

  final KeyRing ring = KeyRing.of(key("k1", 7));
  final RequestStates states = RequestStates.with(ring);
  final RequestStates.Claims claims =
      new RequestStates.Claims(ID, "pay", FP, NOW.plus(Duration.ofMinutes(15)));

  @Test
  void aStateVerifiesForItsActorAndToolAndSaysWhatItWasMadeFor() {
    String s = states.issue("alice", claims);
    assertThat(s).startsWith(RequestStates.PREFIX);
    assertThat(RequestStates.isTally(s)).isTrue();
    assertThat(states.verify(s, "alice", "pay", NOW)).isEqualTo(new RequestStates.Valid(claims));
  }

  @Test
  void theActorIsBoundButNotCarried() {
    String s = states.issue("alice-0123456789", claims);
    String payload = s.substring(RequestStates.PREFIX.length(), s.indexOf('.', 7));
    String decoded = new String(Base64.getUrlDecoder().decode(payload), StandardCharsets.UTF_8);
    assertThat(decoded).doesNotContain("alice").contains(ID.value()).contains("\"t\":\"pay\"");
    assertThat(s).doesNotContain("alice");
  }

  @Test
  void anotherActorGetsTheSameRefusalAsAnAlteredState() {
    String s = states.issue("alice", claims);
    assertInvalid(states.verify(s, "bob", "pay", NOW));
    assertInvalid(states.verify(s, null, "pay", NOW));
  }

  @Test
  void anotherToolIsRefused() {
    assertInvalid(states.verify(states.issue("alice", claims), "alice", "refund", NOW));
  }

  @Test
  void everyAlteredByteOfPayloadKeyIdOrTagIsRefused() {
    String s = states.issue("alice", claims);
    for (int i = RequestStates.PREFIX.length(); i < s.length(); i++) {
      char c = s.charAt(i);
      char other = c == 'A' ? 'B' : 'A';
      if (c == '.') {
        continue;
      }
      String altered = s.substring(0, i) + other + s.substring(i + 1);
      RequestStates.Verified v = states.verify(altered, "alice", "pay", NOW);
      assertThat(v).as("byte %d altered", i).isInstanceOf(RequestStates.Invalid.class);
      assertThat(((RequestStates.Invalid) v).error().code())
          .isEqualTo(TallyError.Code.REQUEST_STATE_INVALID);
    }
  }

  @Test
  void aPayloadForgedWithoutTheKeyIsRefused() {
    String s = states.issue("alice", claims);
    String[] parts = s.substring(RequestStates.PREFIX.length()).split("\\.");
    String forged =
        Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(
                ("{\"v\":1,\"e\":\""
                        + ID.value()
                        + "\",\"t\":\"pay\",\"f\":\""
                        + FP
                        + "\",\"x\":9999999999}")
                    .getBytes(StandardCharsets.UTF_8));
    assertInvalid(
        states.verify(
            RequestStates.PREFIX + forged + "." + parts[1] + "." + parts[2], "alice", "pay", NOW));
  }

  @Test
  void aStatePastItsExpiryIsExpiredNotInvalid() {
    String s = states.issue("alice", claims);
    assertThat(states.verify(s, "alice", "pay", claims.expiresAt().minusSeconds(1)))
        .isInstanceOf(RequestStates.Valid.class);
    RequestStates.Verified v = states.verify(s, "alice", "pay", claims.expiresAt());
    assertThat(((RequestStates.Invalid) v).error().code())
        .isEqualTo(TallyError.Code.REQUEST_STATE_EXPIRED);
    // An altered state is invalid even when it would also have expired.
    assertInvalid(states.verify(s + "A", "alice", "pay", claims.expiresAt().plusSeconds(60)));
  }

  @Test
  void olderKeysStillVerifyDuringARotationAndDroppedKeysDoNot() {
    String s = states.issue("alice", claims);
    RequestStates rotated = RequestStates.with(KeyRing.of(key("k2", 9), List.of(key("k1", 7))));
    assertThat(rotated.verify(s, "alice", "pay", NOW)).isInstanceOf(RequestStates.Valid.class);
    assertThat(rotated.issue("alice", claims)).contains(".k2.");
    RequestStates dropped = RequestStates.with(KeyRing.of(key("k2", 9)));
    assertInvalid(dropped.verify(s, "alice", "pay", NOW));
    RequestStates sameIdOtherKey = RequestStates.with(KeyRing.of(key("k1", 8)));
    assertInvalid(sameIdOtherKey.verify(s, "alice", "pay", NOW));
  }

  @Test
  void malformedAndHostileStatesAreRefusedWithoutAnException() {
    String good = states.issue("alice", claims);
    for (String s :
        List.of(
            "tally1.",
            "tally1...",
            "tally1.a.b",
            "tally1.a.b.c.d",
            "tally1.!!!.k1.!!!",
            "tally1." + "A".repeat(RequestStates.MAX_LENGTH) + ".k1.AAAA",
            good.substring(0, good.lastIndexOf('.')) + ".",
            good.replace(".k1.", ".k9."),
            good.replace(".k1.", ".."))) {
      assertInvalid(states.verify(s, "alice", "pay", NOW));
    }
    assertThat(RequestStates.isTally("someone-elses-state")).isFalse();
    assertThat(RequestStates.isTally(null)).isFalse();
  }

  @Test
  void aValidTagOverAPayloadThatIsNotAStateIsRefused() {
    for (String payload :
        List.of("[]", "{\"v\":2}", "{\"v\":1,\"e\":\"nope\",\"t\":\"pay\",\"f\":\"x\",\"x\":1}")) {
      byte[] p = payload.getBytes(StandardCharsets.UTF_8);
      byte[] signed = Arrays.copyOf(p, p.length + 1 + 5);
      System.arraycopy("alice".getBytes(StandardCharsets.UTF_8), 0, signed, p.length + 1, 5);
      Base64.Encoder b = Base64.getUrlEncoder().withoutPadding();
      String s =
          RequestStates.PREFIX
              + b.encodeToString(p)
              + ".k1."
              + b.encodeToString(ring.tag(ring.active(), RequestStates.DOMAIN, signed));
      assertInvalid(states.verify(s, "alice", "pay", NOW));
    }
  }

  static void assertInvalid(RequestStates.Verified v) {
    assertThat(v).isInstanceOf(RequestStates.Invalid.class);
    assertThat(((RequestStates.Invalid) v).error().code())
        .isEqualTo(TallyError.Code.REQUEST_STATE_INVALID);
    assertThat(((RequestStates.Invalid) v).error().message()).doesNotContain("alice");
  }
}
