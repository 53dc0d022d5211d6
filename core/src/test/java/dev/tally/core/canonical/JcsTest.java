package dev.tally.core.canonical;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.FloatNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tally.core.canonical.CanonicalizationException.Code;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JcsTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private final Jcs jcs = Jcs.create();

  private String canon(String json) {
    return new String(jcs.canonicalize(json.getBytes(UTF_8)), UTF_8);
  }

  private String canon(JsonNode node) {
    return new String(jcs.canonicalize(node), UTF_8);
  }

  private CanonicalizationException refusal(String json) {
    return refusal(json.getBytes(UTF_8));
  }

  private CanonicalizationException refusal(byte[] json) {
    try {
      jcs.parse(json);
    } catch (CanonicalizationException e) {
      return e;
    }
    throw new AssertionError("accepted: " + new String(json, UTF_8));
  }

  @ParameterizedTest
  @ValueSource(strings = {"arrays", "french", "structures", "unicode", "values", "weird"})
  void rfc8785VectorsCanonicalizeByteForByte(String name) {
    byte[] input = Resources.bytes("/jcs/input/" + name + ".json");
    byte[] expected = Resources.bytes("/jcs/output/" + name + ".json");
    assertThat(jcs.canonicalize(input)).isEqualTo(expected);
    assertThat(jcs.canonicalize(expected)).isEqualTo(expected);
  }

  @Test
  void documentsMatchAnIndependentJavaScriptImplementation() {
    List<byte[]> lines = Resources.lines("/jcs/documents.txt");
    assertThat(lines).hasSizeGreaterThanOrEqualTo(800);
    for (int i = 0; i < lines.size(); i += 2) {
      byte[] actual = jcs.canonicalize(lines.get(i));
      assertThat(new String(actual, UTF_8))
          .as("document on line %d", i + 1)
          .isEqualTo(new String(lines.get(i + 1), UTF_8));
      assertThat(actual).isEqualTo(lines.get(i + 1));
    }
  }

  @Test
  void sortsMembersByUtf16CodeUnitsNotCodePoints() {
    // U+FB33 (BMP, above the surrogate range) sorts after U+1F602 (whose first unit is D83D).
    assertThat(canon("{\"\uFB33\":1,\"\uD83D\uDE02\":2,\"\u00e9\":3,\"a\":4}"))
        .isEqualTo("{\"a\":4,\"\u00e9\":3,\"\uD83D\uDE02\":2,\"\uFB33\":1}");
  }

  @Test
  void escapesOnlyWhatRfc8785Requires() {
    assertThat(canon("\"\\u0000\\b\\t\\n\\u000b\\f\\r\\u001f \\\" \\\\ \\/ \\u007f \\u2028 é\""))
        .isEqualTo("\"\\u0000\\b\\t\\n\\u000b\\f\\r\\u001f \\\" \\\\ / \u007f \u2028 é\"");
  }

  @Test
  void scalarsAtTheRootAreDocumentsToo() {
    assertThat(canon(" 1.50 ")).isEqualTo("1.5");
    assertThat(canon("\"x\"")).isEqualTo("\"x\"");
    assertThat(canon("null")).isEqualTo("null");
    assertThat(canon("[true,false]")).isEqualTo("[true,false]");
  }

  @Test
  void numbersAreDoubles() {
    assertThat(canon("12345678901234567890")).isEqualTo("12345678901234567000");
    assertThat(canon("[-0, -0.0, 0e10, 1.0, 1E2, 1e21, 1e-7, 0.000001]"))
        .isEqualTo("[0,0,0,1,100,1e+21,1e-7,0.000001]");
    assertThat(canon("9007199254740993")).isEqualTo("9007199254740992");
  }

  @Test
  void parsedIntegralNumbersAreIntegerNodes() {
    JsonNode tree = jcs.parse("[1, 1.0, -0, 4294967296, 1.5, 1e300]".getBytes(UTF_8));
    assertThat(tree.get(0)).isEqualTo(IntNode.valueOf(1));
    assertThat(tree.get(1)).isEqualTo(IntNode.valueOf(1));
    assertThat(tree.get(2)).isEqualTo(IntNode.valueOf(0));
    assertThat(tree.get(3)).isEqualTo(LongNode.valueOf(4294967296L));
    assertThat(tree.get(4)).isEqualTo(DoubleNode.valueOf(1.5));
    assertThat(tree.get(5)).isEqualTo(DoubleNode.valueOf(1e300));
  }

  @Test
  void duplicateKeyIsRefusedWithThePointerOfTheDuplicate() {
    CanonicalizationException e = refusal("{\"a\":{\"b/c\":1,\"x\":[],\"b/c\":2}}");
    assertThat(e.code()).isEqualTo(Code.DUPLICATE_KEY);
    assertThat(e.pointer()).isEqualTo("/a/b~1c");
    assertThat(e.getMessage()).contains("duplicate").contains("/a/b~1c");
  }

  @Test
  void duplicateKeyDifferingOnlyInEscapesIsStillADuplicate() {
    CanonicalizationException e = refusal("{\"ab\":1,\"a\\u0062\":2}");
    assertThat(e.code()).isEqualTo(Code.DUPLICATE_KEY);
    assertThat(e.pointer()).isEqualTo("/ab");
  }

  @Test
  void loneSurrogatesAreRefusedWhereverTheyAre() {
    CanonicalizationException high = refusal("{\"a\":[\"ok\",\"x\\ud800y\"]}");
    assertThat(high.code()).isEqualTo(Code.LONE_SURROGATE);
    assertThat(high.pointer()).isEqualTo("/a/1");
    assertThat(refusal("[\"\\udc00\"]").code()).isEqualTo(Code.LONE_SURROGATE);
    assertThat(refusal("[\"\\ud800\"]").code()).isEqualTo(Code.LONE_SURROGATE);
    assertThat(refusal("[\"\\ude02\\ud83d\"]").code()).isEqualTo(Code.LONE_SURROGATE);
    CanonicalizationException key = refusal("{\"a\":{\"\\ud800\":1}}");
    assertThat(key.code()).isEqualTo(Code.LONE_SURROGATE);
    assertThat(key.pointer()).isEqualTo("/a");
    byte[] encoded = {
      '{', '"', 'k', '"', ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'
    };
    CanonicalizationException raw = refusal(encoded);
    assertThat(raw.code()).isEqualTo(Code.LONE_SURROGATE);
    assertThat(raw.pointer()).isEqualTo("/k");
  }

  @Test
  void surrogatePairsAreFine() {
    assertThat(canon("\"\\ud83d\\ude02\"")).isEqualTo("\"\uD83D\uDE02\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"NaN", "-NaN", "Infinity", "-Infinity", "+Infinity", "INF", "-INF"})
  void nonFiniteNumbersAreRefused(String token) {
    CanonicalizationException e = refusal("{\"a\":[1," + token + "]}");
    assertThat(e.code()).isIn(Code.NON_FINITE_NUMBER, Code.MALFORMED);
    assertThat(e.pointer()).isEqualTo("/a/1");
  }

  @Test
  void nanAndInfinityHaveTheirOwnCode() {
    assertThat(refusal("[NaN]").code()).isEqualTo(Code.NON_FINITE_NUMBER);
    assertThat(refusal("[-Infinity]").code()).isEqualTo(Code.NON_FINITE_NUMBER);
  }

  @ParameterizedTest
  @ValueSource(strings = {"1e400", "-1e309", "1.8e308", "2e-324", "1e-400", "-0.1e-999"})
  void numbersOutsideTheDoubleRangeAreRefused(String number) {
    CanonicalizationException e = refusal("{\"n\":" + number + "}");
    assertThat(e.code()).isEqualTo(Code.NUMBER_OUT_OF_RANGE);
    assertThat(e.pointer()).isEqualTo("/n");
  }

  @Test
  void hugeIntegerLiteralIsOutOfRange() {
    CanonicalizationException e = refusal("[" + "9".repeat(400) + "]");
    assertThat(e.code()).isEqualTo(Code.NUMBER_OUT_OF_RANGE);
    assertThat(e.pointer()).isEqualTo("/0");
  }

  @Test
  void zeroSpelledWithAnExponentIsNotAnUnderflow() {
    assertThat(canon("[0e-400, 0.000e999, -0E-5]")).isEqualTo("[0,0,0]");
    assertThat(canon("[3e-324, 5e-324, 1.7976931348623157e308]"))
        .isEqualTo("[5e-324,5e-324,1.7976931348623157e+308]");
  }

  @Test
  void depthLimitCountsTheRootAsOne() {
    Jcs shallow = Jcs.create(new CanonicalLimits(2, 1000));
    assertThat(shallow.canonicalize("{\"a\":[1]}".getBytes(UTF_8))).isNotEmpty();
    CanonicalizationException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            CanonicalizationException.class,
            () -> shallow.parse("{\"a\":[1,{\"b\":2}]}".getBytes(UTF_8)));
    assertThat(e.code()).isEqualTo(Code.TOO_DEEP);
    assertThat(e.pointer()).isEqualTo("/a/1");
    assertThat(e.getMessage()).contains("2 levels");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "   ",
        "{",
        "{\"a\":1,}",
        "[1,]",
        "{'a':1}",
        "{a:1}",
        "[01]",
        "[1.]",
        "[.5]",
        "[\"tab\there\"]",
        "[\"\\x\"]",
        "{\"a\":1} x",
        "{\"a\":1} {}",
        "[1] // comment",
        "/* c */ [1]",
        "[1}",
        "tru",
        "\"open"
      })
  void malformedJsonIsRefused(String json) {
    assertThat(refusal(json).code()).isEqualTo(Code.MALFORMED);
  }

  @Test
  void malformedInputNamesWhereItBroke() {
    CanonicalizationException e = refusal("{\"a\":{\"b\":[true, nope]}}");
    assertThat(e.code()).isEqualTo(Code.MALFORMED);
    assertThat(e.pointer()).isEqualTo("/a/b/1");
    assertThat(e.getMessage()).contains("unrecognized token").contains("byte offset");
    assertThat(e.getMessage()).doesNotContain("nope");
  }

  @Test
  void errorMessagesNeverEchoInputValues() {
    String secret = "hunter2-SECRET";
    for (String json :
        List.of(
            "{\"a\":\"" + secret + "\" \"b\":1}",
            "{\"a\":\"" + secret + "\\ud800\"}",
            "[\"" + secret + "\", " + secret + "]",
            "{\"k\":\"" + secret + "\",\"k\":\"" + secret + "\"}",
            "[\"" + secret + "\t\"]",
            "[\"" + secret + "\\q\"]")) {
      CanonicalizationException e = refusal(json);
      assertThat(e.getMessage()).doesNotContain("hunter2");
    }
  }

  @Test
  void invalidUtf8IsMalformed() {
    byte[][] bad = {
      {'[', '"', (byte) 0xC0, (byte) 0xAF, '"', ']'}, // overlong '/'
      {'[', '"', (byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80, '"', ']'}, // > U+10FFFF
      {'[', '"', (byte) 0xFF, '"', ']'},
      {'[', '"', (byte) 0xE2, (byte) 0x82, '"', ']'}, // truncated sequence
      {'[', '"', (byte) 0x80, '"', ']'}, // stray continuation byte
      {'[', '1', ']', 0},
      {0, '[', 0, ']'}, // would look like UTF-16 to Jackson's encoding detection
      {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '[', '1', ']'} // byte order mark
    };
    for (byte[] b : bad) {
      CanonicalizationException e = refusal(b);
      assertThat(e.code()).isEqualTo(Code.MALFORMED);
    }
    assertThat(
            refusal(new byte[] {'{', '"', 'k', '"', ':', '[', '1', ',', (byte) 0xFF, ']', '}'})
                .pointer())
        .isEqualTo("/k/1");
  }

  @Test
  void fourByteUtf8IsAccepted() {
    byte[] emoji = {'"', (byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x82, '"'};
    assertThat(jcs.canonicalize(emoji)).isEqualTo(emoji);
  }

  @Test
  void sizeLimitAppliesToTheDocument() {
    Jcs small = Jcs.create(new CanonicalLimits(8, 10));
    assertThat(small.parse("[1,2,3,45]".getBytes(UTF_8))).hasSize(4);
    CanonicalizationException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            CanonicalizationException.class, () -> small.parse("[1,2,3,456]".getBytes(UTF_8)));
    assertThat(e.code()).isEqualTo(Code.TOO_LARGE);
    assertThat(e.getMessage()).contains("11 bytes").contains("10 bytes");
  }

  @Test
  void treesBuiltInCodeAreValidatedLikeParsedOnes() {
    ObjectNode o = NODES.objectNode();
    o.putArray("a").add(1).add(Double.NaN);
    assertRefused(o, Code.NON_FINITE_NUMBER, "/a/1");

    o = NODES.objectNode();
    o.putObject("b").put("c", Float.POSITIVE_INFINITY);
    assertRefused(o, Code.NON_FINITE_NUMBER, "/b/c");

    o = NODES.objectNode();
    o.put("big", new BigInteger("1" + "0".repeat(400)));
    assertRefused(o, Code.NUMBER_OUT_OF_RANGE, "/big");

    o = NODES.objectNode();
    o.put("tiny", new BigDecimal("1e-400"));
    assertRefused(o, Code.NUMBER_OUT_OF_RANGE, "/tiny");

    o = NODES.objectNode();
    o.put("s", "x\uDC00");
    assertRefused(o, Code.LONE_SURROGATE, "/s");

    o = NODES.objectNode();
    o.putObject("m").put("\uD800", 1);
    assertRefused(o, Code.LONE_SURROGATE, "/m");

    o = NODES.objectNode();
    o.set("p", new POJONode(new Object()));
    assertRefused(o, Code.MALFORMED, "/p");

    o = NODES.objectNode();
    o.set("bin", BinaryNode.valueOf(new byte[] {1}));
    assertRefused(o, Code.MALFORMED, "/bin");
  }

  @Test
  void codeBuiltNumbersCanonicalizeAsDoubles() {
    ObjectNode o = NODES.objectNode();
    o.put("long", Long.MAX_VALUE);
    o.put("float", 1.1f);
    o.put("bigint", new BigInteger("12345678901234567890"));
    o.put("bigdec", new BigDecimal("0.10000000000000000000001"));
    o.set("short", NODES.numberNode((short) 7));
    o.set("dec", DecimalNode.valueOf(new BigDecimal("100.000")));
    o.set("float2", FloatNode.valueOf(0.5f));
    assertThat(canon(o))
        .isEqualTo(
            "{\"bigdec\":0.1,\"bigint\":12345678901234567000,\"dec\":100,\"float\":1.100000023841858,"
                + "\"float2\":0.5,\"long\":9223372036854776000,\"short\":7}");
  }

  @Test
  void codeBuiltTreesAreDepthChecked() {
    Jcs shallow = Jcs.create(new CanonicalLimits(3, 1000));
    ObjectNode o = NODES.objectNode();
    o.putObject("a").putArray("b").addArray().add(1);
    CanonicalizationException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            CanonicalizationException.class, () -> shallow.canonicalize(o));
    assertThat(e.code()).isEqualTo(Code.TOO_DEEP);
    assertThat(e.pointer()).isEqualTo("/a/b/0");
  }

  @Test
  void canonicalFormLongerThanTheLimitIsRefused() {
    Jcs small = Jcs.create(new CanonicalLimits(8, 16));
    assertThat(small.canonicalize(TextNode.valueOf("x".repeat(14)))).hasSize(16);
    CanonicalizationException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            CanonicalizationException.class,
            () -> small.canonicalize(TextNode.valueOf("x".repeat(15))));
    assertThat(e.code()).isEqualTo(Code.TOO_LARGE);
  }

  @Test
  void writerIsReusableAfterARefusal() {
    ObjectNode bad = NODES.objectNode();
    bad.putObject("x").putObject("y").put("z", Double.NaN);
    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(() -> jcs.canonicalize(bad)).isInstanceOf(CanonicalizationException.class);
      assertThat(canon("{\"b\":{\"d\":1,\"c\":2},\"a\":[3]}"))
          .isEqualTo("{\"a\":[3],\"b\":{\"c\":2,\"d\":1}}");
    }
  }

  @Test
  void largeObjectsAreSortedCorrectly() {
    ObjectNode o = NODES.objectNode();
    java.util.Random r = new java.util.Random(7);
    java.util.TreeMap<String, Integer> expected = new java.util.TreeMap<>();
    for (int i = 0; i < 2000; i++) {
      String k = Integer.toString(r.nextInt(1_000_000), 36) + (char) ('a' + r.nextInt(26));
      o.put(k, i);
      expected.put(k, i);
    }
    StringBuilder sb = new StringBuilder("{");
    expected.forEach(
        (k, v) ->
            sb.append(sb.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
    assertThat(canon(o)).isEqualTo(sb.append('}').toString());
  }

  private void assertRefused(JsonNode tree, Code code, String pointer) {
    CanonicalizationException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            CanonicalizationException.class, () -> jcs.canonicalize(tree));
    assertThat(e.code()).isEqualTo(code);
    assertThat(e.pointer()).isEqualTo(pointer);
  }
}
