package dev.tally.core.canonical;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.contract.FingerprintRules;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import org.junit.jupiter.api.Test;

class ActionRecordTest {
  private final Jcs jcs = Jcs.create();
  private final KeyRing keys = KeyRing.of(HmacKey.of("k1", new byte[32]));
  private final ArgumentNormalizer normalizer =
      ArgumentNormalizer.create("idempotencyKey", keys::secretReference, jcs);

  private ActionRecord record(String arguments) {
    return new ActionRecord(
        "tok:abc",
        "create_ticket",
        ActionRecord.CHANNEL_MCP,
        "upstream-1",
        null,
        normalizer.normalize(jcs.parse(arguments.getBytes(UTF_8)), FingerprintRules.NONE),
        "run-7");
  }

  @Test
  void canonicalBytesFollowArchitectureSection3() {
    assertThat(new String(record("{\"b\":1,\"a\":\"x\"}").canonicalBytes(jcs), UTF_8))
        .isEqualTo(
            "{\"actor\":\"tok:abc\",\"arguments\":{\"a\":\"x\",\"b\":1},\"channel\":\"mcp\","
                + "\"credential_ref\":\"\",\"intent_scope\":\"run-7\",\"target\":\"upstream-1\","
                + "\"tool\":\"create_ticket\"}");
  }

  @Test
  void retriesSpelledDifferentlyShareAFingerprint() {
    byte[] first =
        record("{\"title\":\"Hi\",\"n\":1.0,\"idempotencyKey\":\"k-1\"}").canonicalBytes(jcs);
    byte[] retry =
        record("{ \"n\" : 1, \"title\" : \"H\\u0069\", \"_meta\": {\"progressToken\": 9} }")
            .canonicalBytes(jcs);
    assertThat(keys.fingerprint(retry)).isEqualTo(keys.fingerprint(first));
    byte[] other = record("{\"title\":\"Hi\",\"n\":2}").canonicalBytes(jcs);
    assertThat(keys.fingerprint(other)).isNotEqualTo(keys.fingerprint(first));
  }
}
