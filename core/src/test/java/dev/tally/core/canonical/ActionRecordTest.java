package dev.tally.core.canonical;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.contract.FingerprintRules;
import dev.tally.core.fingerprint.Fingerprint;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.mcp.ToolCallReader;
import dev.tally.core.mcp.WireJson;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class ActionRecordTest {
  private final Jcs jcs = Jcs.create();
  private final KeyRing keys = KeyRing.of(HmacKey.of("k1", new byte[32]));
  private final ArgumentNormalizer normalizer =
      ArgumentNormalizer.create("idempotencyKey", keys::secretReference, jcs);

  private ActionRecord record(String arguments) {
    return record(jcs.parse(arguments.getBytes(UTF_8)));
  }

  private ActionRecord record(JsonNode arguments) {
    return new ActionRecord(
        "tok:abc",
        "create_ticket",
        ActionRecord.CHANNEL_MCP,
        "upstream-1",
        null,
        normalizer.normalize(arguments, FingerprintRules.NONE),
        "run-7");
  }

  /** The arguments of a tools/call as the gate gets them: read by the MCP wire layer. */
  private static JsonNode wireArguments(String arguments) {
    byte[] body =
        ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"pay\","
                + "\"arguments\":"
                + arguments
                + "}}")
            .getBytes(UTF_8);
    ToolCallReader.Read read =
        ToolCallReader.create(WireJson.defaults()).read(body, 0, body.length);
    assertThat(read).isInstanceOf(ToolCallReader.Ok.class);
    return ((ToolCallReader.Ok) read).envelope().arguments();
  }

  /** Both ways a tree reaches the normalizer: {@link Jcs#parse} and the MCP wire layer. */
  private List<Function<String, Fingerprint>> fingerprintPaths() {
    return List.of(
        args -> keys.fingerprint(record(args).canonicalBytes(jcs)),
        args -> keys.fingerprint(record(wireArguments(args)).canonicalBytes(jcs)));
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

  @Test
  void numbersThatDifferInAnyDigitGetDifferentFingerprints() {
    String[][] pairs = {
      {"1234567890123456789", "1234567890123456790"},
      {"12345678901234567.89", "12345678901234567.88"},
      {"0.1000000000000000000001", "0.1"},
      {"9007199254740993", "9007199254740992"},
      {"-9007199254740993", "-9007199254740992"},
      {"123456789012345.68", "123456789012345.69"},
      {"333333333.33333329", "333333333.3333333"},
      {"1e-7", "1.0000000000000000000001e-7"},
      {"3e-324", "5e-324"},
      {"123456789012345678901234567890", "123456789012345678901234567891"}
    };
    for (Function<String, Fingerprint> path : fingerprintPaths()) {
      for (String[] p : pairs) {
        assertThat(path.apply("{\"amount\":" + p[0] + "}"))
            .as("%s vs %s", p[0], p[1])
            .isNotEqualTo(path.apply("{\"amount\":" + p[1] + "}"));
      }
    }
  }

  @Test
  void equalNumbersSpelledDifferentlyShareAFingerprint() {
    String[][] groups = {
      {"1", "1.0", "1e0", "10E-1", "0.1e1", "1.000"},
      {"0", "-0", "0.0", "-0.0", "0e10", "-0E-5"},
      {"1.5", "1.50", "15e-1", "0.15E+1"},
      {"100", "1E2", "1e+2", "100.00", "10000e-2"},
      {"0.1", "0.10", "1e-1", "0.01e1"},
      {"12345678901234567.89", "12345678901234567.890", "1234567890123456789e-2"},
      {"1234567890123456789", "1234567890123456789.000", "1.234567890123456789e18"},
      {"-0.1000000000000000000001", "-1.000000000000000000001E-1"}
    };
    for (Function<String, Fingerprint> path : fingerprintPaths()) {
      for (String[] g : groups) {
        Fingerprint first = path.apply("{\"amount\":" + g[0] + "}");
        for (String spelling : g) {
          assertThat(path.apply("{\"amount\":" + spelling + "}"))
              .as("%s vs %s", spelling, g[0])
              .isEqualTo(first);
        }
      }
    }
  }

  @Test
  void bothPathsAgreeOnTheCanonicalRecordOfLongNumbers() {
    String args =
        "{\"a\":12345678901234567.89,\"b\":1234567890123456789,\"c\":0.1000000000000000000001,"
            + "\"d\":[1.50,1E2,-0,333333333.33333329]}";
    byte[] parsed = record(args).canonicalBytes(jcs);
    assertThat(record(wireArguments(args)).canonicalBytes(jcs)).isEqualTo(parsed);
    assertThat(new String(parsed, UTF_8))
        .contains(
            "\"arguments\":{\"a\":12345678901234567.89,\"b\":1234567890123456789,"
                + "\"c\":0.1000000000000000000001,\"d\":[1.5,100,0,333333333.33333329]}");
  }
}
