package dev.tally.core.canonical;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.canonical.CanonicalizationException.Code;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Truncated, mutated, huge and deep input, all in memory. */
class JcsHostileInputTest {
  private static final byte[] DOCUMENT =
      ("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"create_ticket\","
              + "\"arguments\":{\"title\":\"Printer \\u00e9 on fire \\ud83d\\udd25\",\"priority\":"
              + "\"high\",\"tags\":[\"hw\",\"urgent\",null,true],\"amount\":-12.5e-3,\"n\":[[],{}]}}}")
          .getBytes(UTF_8);

  private final Jcs jcs = Jcs.create();

  private static CanonicalizationException refused(Jcs jcs, byte[] json) {
    return assertThrows(CanonicalizationException.class, () -> jcs.parse(json));
  }

  private static byte[] nested(String open, String close, int depth) {
    return (open.repeat(depth) + close.repeat(depth)).getBytes(UTF_8);
  }

  @Test
  void everyTruncationIsMalformed() {
    jcs.parse(DOCUMENT);
    for (int n = 0; n < DOCUMENT.length; n++) {
      CanonicalizationException e = refused(jcs, Arrays.copyOf(DOCUMENT, n));
      assertThat(e.code()).as("prefix of %d bytes", n).isEqualTo(Code.MALFORMED);
    }
  }

  @Test
  void randomByteMutationsAreEitherAcceptedOrRefusedWithACode() {
    Random random = new Random(11);
    int refused = 0;
    for (int i = 0; i < 2000; i++) {
      byte[] doc = DOCUMENT.clone();
      for (int k = 1 + random.nextInt(3); k > 0; k--) {
        doc[random.nextInt(doc.length)] = (byte) random.nextInt(256);
      }
      try {
        byte[] once = jcs.canonicalize(doc);
        assertThat(jcs.canonicalize(once)).isEqualTo(once);
      } catch (CanonicalizationException e) {
        refused++;
        assertThat(e.code()).isNotNull();
        assertThat(e.pointer()).isNotNull();
      }
    }
    assertThat(refused).isGreaterThan(400);
  }

  @Test
  void tenThousandDeepArraysAreRefusedByTheDepthLimit() {
    CanonicalizationException e = refused(jcs, nested("[", "]", 10_000));
    assertThat(e.code()).isEqualTo(Code.TOO_DEEP);
    assertThat(e.pointer()).isEqualTo("/0".repeat(CanonicalLimits.DEFAULT_MAX_DEPTH));
  }

  @Test
  void tenThousandDeepObjectsAreRefusedByTheDepthLimit() {
    CanonicalizationException e = refused(jcs, nested("{\"a\":", "}", 10_000));
    assertThat(e.code()).isIn(Code.TOO_DEEP);
    assertThat(e.pointer()).isEqualTo("/a".repeat(CanonicalLimits.DEFAULT_MAX_DEPTH));
  }

  @Test
  void unclosedDeepNestingIsRefusedByTheDepthLimitFirst() {
    byte[] json = "[".repeat(100_000).getBytes(UTF_8);
    assertThat(refused(jcs, json).code()).isEqualTo(Code.TOO_DEEP);
  }

  @Test
  void veryDeepDocumentsWithinAGenerousLimitDoNotOverflowTheStack() {
    int depth = 50_000; // a recursive reader or writer overflows long before this
    Jcs generous = Jcs.create(new CanonicalLimits(depth + 1, 4 * depth));
    byte[] json = nested("[", "]", depth);
    JsonNode tree = generous.parse(json);
    assertThat(generous.canonicalize(tree)).isEqualTo(json);
    ArgumentNormalizer normalizer = ArgumentNormalizer.create("k", b -> "ref", generous);
    ObjectNode args = JsonNodeFactory.instance.objectNode();
    args.set("deep", tree);
    assertThat(
            normalizer.normalize(args, dev.tally.core.contract.FingerprintRules.NONE).get("deep"))
        .isNotNull();
  }

  @Test
  void deepTreesBuiltInCodeAreRefusedWithoutStackOverflow() {
    ArrayNode root = JsonNodeFactory.instance.arrayNode();
    ArrayNode a = root;
    for (int i = 0; i < 10_000; i++) {
      a = a.addArray();
    }
    CanonicalizationException e =
        assertThrows(CanonicalizationException.class, () -> jcs.canonicalize(root));
    assertThat(e.code()).isEqualTo(Code.TOO_DEEP);
  }

  @Test
  void sizeLimitHoldsExactlyAtTheBoundary() {
    int limit = 1000;
    Jcs bounded = Jcs.create(new CanonicalLimits(8, limit));
    byte[] exact = ("\"" + "x".repeat(limit - 2) + "\"").getBytes(UTF_8);
    assertThat(exact).hasSize(limit);
    assertThat(bounded.canonicalize(exact)).isEqualTo(exact);
    byte[] over = ("\"" + "x".repeat(limit - 1) + "\"").getBytes(UTF_8);
    CanonicalizationException e = refused(bounded, over);
    assertThat(e.code()).isEqualTo(Code.TOO_LARGE);
    assertThat(e.pointer()).isEmpty();
  }

  @Test
  void hugeNumberLiteralsAreRefusedQuickly() {
    byte[] bigInt = ("[1" + "0".repeat(1_000_000) + "]").getBytes(UTF_8);
    assertThat(refused(jcs, bigInt).code()).isEqualTo(Code.NUMBER_OUT_OF_RANGE);
    byte[] bigFloat = ("[1" + "0".repeat(1_000_000) + ".5]").getBytes(UTF_8);
    assertThat(refused(jcs, bigFloat).code()).isEqualTo(Code.NUMBER_OUT_OF_RANGE);
    byte[] tiny = ("[0." + "0".repeat(1_000_000) + "1]").getBytes(UTF_8);
    assertThat(refused(jcs, tiny).code()).isEqualTo(Code.NUMBER_OUT_OF_RANGE);
    byte[] hugeExponent = "[1e999999999999999999]".getBytes(UTF_8);
    assertThat(refused(jcs, hugeExponent).code()).isEqualTo(Code.NUMBER_OUT_OF_RANGE);
  }

  @Test
  void longNumberLiteralsThatAreDoublesAreAccepted() {
    byte[] json = ("[0.1" + "0".repeat(100_000) + "]").getBytes(UTF_8);
    assertThat(new String(jcs.canonicalize(json), UTF_8)).isEqualTo("[0.1]");
  }

  @Test
  void manyMembersAndLongStringsAreFine() {
    StringBuilder sb = new StringBuilder("{");
    for (int i = 99_999; i >= 0; i--) {
      sb.append('"').append(i).append("\":").append(i).append(i > 0 ? "," : "}");
    }
    byte[] out = jcs.canonicalize(sb.toString().getBytes(UTF_8));
    assertThat(new String(out, 0, 20, UTF_8)).isEqualTo("{\"0\":0,\"1\":1,\"10\":10");
    String escaped = "\\u0001\\\"\\ud83d\\ude00".repeat(50_000);
    byte[] s = jcs.canonicalize(("\"" + escaped + "\"").getBytes(UTF_8));
    assertThat(s).hasSize(2 + 50_000 * (6 + 2 + 4));
  }

  @Test
  void duplicateKeysFarApartAreFound() {
    StringBuilder sb = new StringBuilder("{\"dup\":0");
    for (int i = 0; i < 10_000; i++) {
      sb.append(",\"k").append(i).append("\":1");
    }
    sb.append(",\"dup\":1}");
    CanonicalizationException e = refused(jcs, sb.toString().getBytes(UTF_8));
    assertThat(e.code()).isEqualTo(Code.DUPLICATE_KEY);
    assertThat(e.pointer()).isEqualTo("/dup");
  }
}
