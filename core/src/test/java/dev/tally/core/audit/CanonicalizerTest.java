package dev.tally.core.audit;

import static dev.tally.core.audit.Fixtures.T0;
import static dev.tally.core.audit.Fixtures.accepted;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The verifier's canonicalizer is RFC 8785, and the writer's lines are canonical by it. */
class CanonicalizerTest {
  @TempDir Path dir;

  @Test
  void jcsProducesRfc8785BytesForStringsAndIntegers() throws Exception {
    JsonNode node =
        EntryCodec.STRICT.readTree(
            "{\"sin\":\"ignore locale\",\"péché\":2,\"peach\":-3,\"pêche\":\"A\u030a\","
                + "\"\\u20ac\":\"q\\\"b\\\\s/\",\"😂\":9007199254740991,\"1\":{\"b\":1,\"a\":[2,1]}}");
    assertThat(new String(Canonicalizer.jcs().canonicalize(node), StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"1\":{\"a\":[2,1],\"b\":1},\"peach\":-3,\"péché\":2,\"pêche\":\"A\u030a\","
                + "\"sin\":\"ignore locale\",\"€\":\"q\\\"b\\\\s/\",\"😂\":9007199254740991}");
  }

  @Test
  void writtenLinesAreTheirJcsFormWithTheHashAdded() throws Exception {
    try (AuditJournals j = AuditJournals.open(dir, Fixtures.options(new MutableClock(T0)))) {
      Fixtures.happyPath(j, accepted("Zoë \"z\" \\ 東京", "refund", "hmac-sha256:k1:aa", T0), false);
    }
    Canonicalizer jcs = Canonicalizer.jcs();
    for (String line : Files.readAllLines(dir.resolve(AuditFiles.ACTIVITY))) {
      ObjectNode entry = (ObjectNode) EntryCodec.STRICT.readTree(line);
      entry.remove("hash");
      byte[] canonical = jcs.canonicalize(entry);
      String hash = EntryCodec.STRICT.readTree(line).get("hash").asText();
      assertThat(new String(EntryCodec.line(canonical, hash), StandardCharsets.UTF_8))
          .isEqualTo(line);
    }
  }
}
