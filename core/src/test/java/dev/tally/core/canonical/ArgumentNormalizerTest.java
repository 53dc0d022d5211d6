package dev.tally.core.canonical;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tally.core.canonical.CanonicalizationException.Code;
import dev.tally.core.contract.FingerprintRules;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArgumentNormalizerTest {
  private static final String SECRET = "4111-1111-1111-1111";

  private final Jcs jcs = Jcs.create();
  private final KeyRing keys = KeyRing.of(HmacKey.of("k1", new byte[32]));
  private final List<String> referenced = new ArrayList<>();
  private final ArgumentNormalizer normalizer =
      ArgumentNormalizer.create(
          ArgumentNormalizer.DEFAULT_IDEMPOTENCY_ARGUMENT,
          bytes -> {
            referenced.add(new String(bytes, UTF_8));
            return keys.secretReference(bytes);
          },
          jcs);

  private JsonNode json(String s) {
    return jcs.parse(s.getBytes(UTF_8));
  }

  private String canon(JsonNode n) {
    return new String(jcs.canonicalize(n), UTF_8);
  }

  private static FingerprintRules rules(
      List<String> include,
      List<String> exclude,
      Map<String, JsonNode> defaults,
      List<String> secrets) {
    return new FingerprintRules(include, exclude, defaults, secrets);
  }

  private static FingerprintRules include(String... paths) {
    return rules(List.of(paths), List.of(), Map.of(), List.of());
  }

  private static FingerprintRules exclude(String... paths) {
    return rules(List.of(), List.of(paths), Map.of(), List.of());
  }

  private static FingerprintRules secrets(String... paths) {
    return rules(List.of(), List.of(), Map.of(), List.of(paths));
  }

  private String normalized(String args, FingerprintRules rules) {
    return canon(normalizer.normalize(json(args), rules));
  }

  @Test
  void dropsMetaAndTheIdempotencyKeyAtTopLevelOnly() {
    assertThat(
            normalized(
                "{\"_meta\":{\"progressToken\":1},\"idempotencyKey\":\"abc\",\"a\":{\"_meta\":1,"
                    + "\"idempotencyKey\":2}}",
                FingerprintRules.NONE))
        .isEqualTo("{\"a\":{\"_meta\":1,\"idempotencyKey\":2}}");
  }

  @Test
  void idempotencyArgumentNameComesFromTheFactory() {
    ArgumentNormalizer custom = ArgumentNormalizer.create("requestId", b -> "r", jcs);
    JsonNode out =
        custom.normalize(
            json("{\"requestId\":\"x\",\"idempotencyKey\":\"y\"}"), FingerprintRules.NONE);
    assertThat(canon(out)).isEqualTo("{\"idempotencyKey\":\"y\"}");
  }

  @Test
  void nullOrMissingArgumentsAreAnEmptyObject() {
    assertThat(canon(normalizer.normalize(null, FingerprintRules.NONE))).isEqualTo("{}");
    assertThat(canon(normalizer.normalize(NullNode.instance, FingerprintRules.NONE)))
        .isEqualTo("{}");
    assertThat(canon(normalizer.normalize(MissingNode.getInstance(), FingerprintRules.NONE)))
        .isEqualTo("{}");
  }

  @Test
  void argumentsThatAreNotAnObjectAreRefused() {
    CanonicalizationException e =
        assertThrows(
            CanonicalizationException.class,
            () -> normalizer.normalize(json("[1,2]"), FingerprintRules.NONE));
    assertThat(e.code()).isEqualTo(Code.MALFORMED);
    assertThat(e.pointer()).isEmpty();
    assertThat(e.getMessage()).contains("must be a JSON object").contains("array");
    assertThatThrownBy(() -> normalizer.normalize(TextNode.valueOf(SECRET), FingerprintRules.NONE))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessageNotContaining(SECRET);
  }

  @Test
  void neverMutatesTheInput() {
    JsonNode args = json("{\"a\":{\"b\":1,\"c\":2},\"s\":\"x\",\"_meta\":{}}");
    String before = canon(args);
    normalizer.normalize(
        args,
        rules(
            List.of("/a", "/s"),
            List.of("/a/b"),
            Map.of("/a/d", json("{\"e\":1}")),
            List.of("/s")));
    assertThat(canon(args)).isEqualTo(before);
  }

  @Test
  void resultIsADeepCopy() {
    ObjectNode args = (ObjectNode) json("{\"a\":{\"b\":1}}");
    ObjectNode out = (ObjectNode) normalizer.normalize(args, FingerprintRules.NONE);
    ((ObjectNode) out.get("a")).put("b", 2);
    assertThat(args.get("a").get("b").intValue()).isEqualTo(1);
  }

  @Test
  void includeKeepsOnlyThePathsAndTheirAncestors() {
    assertThat(
            normalized(
                "{\"title\":\"t\",\"body\":\"b\",\"opts\":{\"fast\":true,\"color\":\"red\"},\"x\":1}",
                include("/title", "/opts/fast", "/missing", "/x/y")))
        .isEqualTo("{\"opts\":{\"fast\":true},\"title\":\"t\"}");
  }

  @Test
  void includeOfAnAncestorKeepsTheWholeSubtree() {
    assertThat(normalized("{\"a\":{\"b\":1,\"c\":2},\"d\":3}", include("/a/b", "/a")))
        .isEqualTo("{\"a\":{\"b\":1,\"c\":2}}");
  }

  @Test
  void includeKeepsArrayPositions() {
    assertThat(
            normalized(
                "{\"items\":[{\"sku\":\"a\",\"n\":1},{\"sku\":\"b\",\"n\":2},{\"sku\":\"c\"}]}",
                include("/items/1/sku", "/items/-", "/items/01")))
        .isEqualTo("{\"items\":[null,{\"sku\":\"b\"}]}");
  }

  @Test
  void includeWithNothingPresentIsAnEmptyObject() {
    assertThat(normalized("{\"a\":1}", include("/b"))).isEqualTo("{}");
  }

  @Test
  void excludeDropsPaths() {
    assertThat(
            normalized(
                "{\"a\":{\"b\":1,\"c\":2},\"trace\":\"t\",\"l\":[0,1,2,3]}",
                exclude("/a/b", "/trace", "/l/1", "/l/3", "/nope", "/a/b/c")))
        .isEqualTo("{\"a\":{\"c\":2},\"l\":[0,2]}");
  }

  @Test
  void escapedPointerTokensAddressTheRightMembers() {
    assertThat(
            normalized(
                "{\"a/b\":1,\"m~n\":2,\"a\":{\"b\":3},\"\":4}", exclude("/a~1b", "/m~0n", "/")))
        .isEqualTo("{\"a\":{\"b\":3}}");
  }

  @Test
  void defaultsAreMaterializedWhereAbsent() {
    FingerprintRules rules =
        rules(
            List.of(),
            List.of(),
            Map.of(
                "/priority", TextNode.valueOf("normal"),
                "/opts/retries", json("3"),
                "/opts/mode/name", TextNode.valueOf("x"),
                "/title", TextNode.valueOf("untitled")),
            List.of());
    assertThat(normalized("{\"title\":\"Hi\"}", rules))
        .isEqualTo(
            "{\"opts\":{\"mode\":{\"name\":\"x\"},\"retries\":3},\"priority\":\"normal\",\"title\":\"Hi\"}");
    assertThat(
            normalized(
                "{\"title\":\"Hi\",\"priority\":\"normal\",\"opts\":{\"retries\":3.0}}", rules))
        .isEqualTo(normalized("{\"title\":\"Hi\",\"opts\":{}}", rules));
  }

  @Test
  void anExplicitNullIsPresentAndKeepsItsValue() {
    FingerprintRules rules =
        rules(List.of(), List.of(), Map.of("/p", TextNode.valueOf("normal")), List.of());
    assertThat(normalized("{\"p\":null}", rules)).isEqualTo("{\"p\":null}");
  }

  @Test
  void defaultsBelowAScalarAreSkipped() {
    FingerprintRules rules =
        rules(
            List.of(),
            List.of(),
            Map.of("/opts/fast", json("true"), "/l/5/x", json("1")),
            List.of());
    assertThat(normalized("{\"opts\":\"none\",\"l\":[]}", rules))
        .isEqualTo("{\"l\":[],\"opts\":\"none\"}");
  }

  @Test
  void materializedDefaultsAreFreshCopies() {
    FingerprintRules rules =
        rules(List.of(), List.of(), Map.of("/opts", json("{\"a\":1}")), List.of());
    ObjectNode first = (ObjectNode) normalizer.normalize(json("{}"), rules);
    ((ObjectNode) first.get("opts")).put("a", 99);
    assertThat(normalized("{}", rules)).isEqualTo("{\"opts\":{\"a\":1}}");
  }

  @Test
  void excludeWinsOverDefaultsAndIncludeSelectsAfterDefaults() {
    FingerprintRules rules =
        rules(
            List.of("/a", "/b"),
            List.of("/b"),
            Map.of("/a", json("1"), "/b", json("2"), "/c", json("3")),
            List.of());
    assertThat(normalized("{}", rules)).isEqualTo("{\"a\":1}");
  }

  @Test
  void secretsAreReplacedByAKeyedReference() {
    String out = normalized("{\"card\":\"" + SECRET + "\",\"amount\":5}", secrets("/card", "/cvv"));
    String expected = keys.secretReference(("\"" + SECRET + "\"").getBytes(UTF_8));
    assertThat(out).isEqualTo("{\"amount\":5,\"card\":\"" + expected + "\"}");
    assertThat(out).doesNotContain(SECRET).doesNotContain("4111");
    assertThat(referenced).containsExactly("\"" + SECRET + "\"");
  }

  @Test
  void secretReferenceIsOverTheCanonicalFormOfTheValue() {
    FingerprintRules rules = secrets("/auth");
    assertThat(normalized("{\"auth\":{\"user\":\"u\",\"pass\":\"" + SECRET + "\"}}", rules))
        .isEqualTo(
            normalized("{\"auth\":{ \"pass\" : \"" + SECRET + "\", \"user\":\"\\u0075\"}}", rules));
    assertThat(normalized("{\"auth\":\"a\"}", rules))
        .isNotEqualTo(normalized("{\"auth\":\"b\"}", rules));
    assertThat(referenced).allMatch(s -> s.startsWith("{\"pass\"") || s.startsWith("\""));
  }

  @Test
  void secretsInsideArraysAndAfterIncludeAreReplaced() {
    FingerprintRules rules =
        rules(List.of("/cards"), List.of(), Map.of(), List.of("/cards/0/number", "/token"));
    String out =
        normalized(
            "{\"cards\":[{\"number\":\"" + SECRET + "\",\"exp\":\"12/30\"}],\"token\":\"t\"}",
            rules);
    assertThat(out)
        .doesNotContain(SECRET)
        .contains("secret:k1:")
        .contains("12/30")
        .doesNotContain("token");
  }

  @Test
  void secretValuesNeverAppearInExceptionMessages() {
    FingerprintRules rules = secrets("/card");
    for (JsonNode bad :
        List.of(
            JsonNodeFactory.instance.objectNode().put("card", SECRET + "\uD800"),
            JsonNodeFactory.instance.objectNode().put("card", Double.NaN))) {
      CanonicalizationException e =
          assertThrows(CanonicalizationException.class, () -> normalizer.normalize(bad, rules));
      assertThat(e.getMessage()).doesNotContain(SECRET).doesNotContain("4111");
      assertThat(e.pointer()).isEqualTo("/card");
    }
  }

  @Test
  void validatesTheArguments() {
    ObjectNode deep = JsonNodeFactory.instance.objectNode();
    ObjectNode o = deep;
    for (int i = 0; i < 100; i++) {
      o = o.putObject("d");
    }
    CanonicalizationException tooDeep =
        assertThrows(
            CanonicalizationException.class,
            () -> normalizer.normalize(deep, FingerprintRules.NONE));
    assertThat(tooDeep.code()).isEqualTo(Code.TOO_DEEP);
    assertThat(tooDeep.pointer()).isEqualTo("/d".repeat(CanonicalLimits.DEFAULT_MAX_DEPTH));

    ObjectNode nan = JsonNodeFactory.instance.objectNode();
    nan.putArray("xs").add(1).add(Double.POSITIVE_INFINITY);
    CanonicalizationException nonFinite =
        assertThrows(
            CanonicalizationException.class,
            () -> normalizer.normalize(nan, FingerprintRules.NONE));
    assertThat(nonFinite.code()).isEqualTo(Code.NON_FINITE_NUMBER);
    assertThat(nonFinite.pointer()).isEqualTo("/xs/1");

    ObjectNode lone = JsonNodeFactory.instance.objectNode();
    lone.putObject("m").put("k\uDC00", 1);
    CanonicalizationException surrogate =
        assertThrows(
            CanonicalizationException.class,
            () -> normalizer.normalize(lone, FingerprintRules.NONE));
    assertThat(surrogate.code()).isEqualTo(Code.LONE_SURROGATE);
    assertThat(surrogate.pointer()).isEqualTo("/m");
  }

  @Test
  void numbersAreNormalizedLikeParsedOnes() {
    ObjectNode args = JsonNodeFactory.instance.objectNode();
    args.put("a", 1.0).put("b", new java.math.BigDecimal("2.50")).put("c", 3L);
    assertThat(normalizer.normalize(args, FingerprintRules.NONE))
        .isEqualTo(json("{\"a\":1,\"b\":2.5,\"c\":3}"));
  }

  @Test
  void malformedRulePathsAreConfigurationErrors() {
    assertThatThrownBy(() -> normalizer.normalize(json("{}"), exclude("a/b")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exclude")
        .hasMessageContaining("a/b");
    assertThatThrownBy(() -> normalizer.normalize(json("{}"), secrets("/a~2")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("secrets");
    assertThatThrownBy(() -> normalizer.normalize(json("{}"), include("")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("whole arguments");
    FingerprintRules badDefault =
        rules(
            List.of(),
            List.of(),
            Map.of("/x", JsonNodeFactory.instance.numberNode(Double.NaN)),
            List.of());
    CanonicalizationException e =
        assertThrows(
            CanonicalizationException.class, () -> normalizer.normalize(json("{}"), badDefault));
    assertThat(e.pointer()).isEqualTo("/x");
  }

  @Test
  void equalRulesInstancesGiveEqualResults() {
    FingerprintRules a = exclude("/t");
    FingerprintRules b = exclude("/t");
    assertThat(normalized("{\"t\":1,\"u\":2}", a)).isEqualTo(normalized("{\"t\":1,\"u\":2}", b));
    assertThat(normalized("{\"t\":1,\"u\":2}", FingerprintRules.NONE))
        .isEqualTo("{\"t\":1,\"u\":2}");
    assertThat(normalized("{\"t\":1,\"u\":2}", a)).isEqualTo("{\"u\":2}");
  }

  @Test
  void summaryShowsKeysAndTypesNeverValues() {
    String summary =
        normalizer.summarize(
            json(
                "{\"title\":\"Printer on fire\",\"priority\":\"urgent\",\"tags\":[\"a\",\"b\",\"c\"],"
                    + "\"amount\":12.5,\"done\":false,\"owner\":null,\"card\":\""
                    + SECRET
                    + "\",\"nested\":{\"pin\":\"1234\",\"n\":1},\"emoji\":\"\uD83D\uDE02\"}"),
            secrets("/card", "/nested/pin"));
    assertThat(summary)
        .isEqualTo(
            "{amount:number, card:secret, done:boolean, emoji:string(1), nested:{n:number, pin:secret},"
                + " owner:null, priority:string(6), tags:array(3), title:string(15)}");
    assertThat(summary).doesNotContain(SECRET).doesNotContain("1234").doesNotContain("fire");
  }

  @Test
  void summaryQuotesOddNamesAndIsCapped() {
    ObjectNode args = JsonNodeFactory.instance.objectNode();
    args.put("we ird\"name", 1);
    args.put("lone\uD800", 1);
    assertThat(normalizer.summarize(args, FingerprintRules.NONE))
        .isEqualTo("{\"lone\\ud800\":number, \"we ird\\\"name\":number}");
    ObjectNode big = JsonNodeFactory.instance.objectNode();
    for (int i = 0; i < 60; i++) {
      big.put("field_number_" + i, "v");
    }
    String summary = normalizer.summarize(big, FingerprintRules.NONE);
    assertThat(summary).hasSize(ShapeSummary.MAX_CHARS).endsWith("…");
    big.put("one_too_many", 1);
    for (int i = 0; i < 10; i++) {
      big.put("more" + i, 1);
    }
    assertThat(normalizer.summarize(big, FingerprintRules.NONE)).isEqualTo("object(71)");
  }

  @Test
  void summaryOfOddArguments() {
    assertThat(normalizer.summarize(null, FingerprintRules.NONE)).isEqualTo("{}");
    assertThat(normalizer.summarize(json("[1,2]"), FingerprintRules.NONE)).isEqualTo("array(2)");
    assertThat(
            normalizer.summarize(
                json("{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":1}}}}}"), FingerprintRules.NONE))
        .isEqualTo("{a:{b:{c:{d:object(1)}}}}");
  }
}
