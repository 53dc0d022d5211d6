package dev.tally.core.canonical;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.FloatNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.canonical.CanonicalizationException.Code;
import dev.tally.core.contract.FingerprintRules;
import dev.tally.core.mcp.WireJson;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The exact canonical form of numbers (docs/canonical-form.md), over both ways trees are built. */
class ExactNumbersTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private final Jcs jcs = Jcs.create();
  private final ArgumentNormalizer normalizer =
      ArgumentNormalizer.create("idempotencyKey", b -> "ref", jcs);

  private String exact(String json) {
    return new String(jcs.canonicalizeExact(json.getBytes(UTF_8)), UTF_8);
  }

  private String rfc(String json) {
    return new String(jcs.canonicalize(json.getBytes(UTF_8)), UTF_8);
  }

  /** {@code {"n":<number>}} read by the MCP wire layer's exact mapper, normalized, canonical. */
  private String exactFromWire(String number) throws Exception {
    JsonNode args = WireJson.defaults().strict().readTree("{\"n\":" + number + "}");
    return new String(
        jcs.canonicalizeExact(normalizer.normalize(args, FingerprintRules.NONE)), UTF_8);
  }

  private String exactFromParse(String number) {
    JsonNode args = jcs.parse(("{\"n\":" + number + "}").getBytes(UTF_8));
    return new String(
        jcs.canonicalizeExact(normalizer.normalize(args, FingerprintRules.NONE)), UTF_8);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        // Renderings of doubles: exactly what RFC 8785 writes.
        "1|1",
        "1.0|1",
        "1e0|1",
        "-0|0",
        "-0.0e-7|0",
        "0.1|0.1",
        "1.50|1.5",
        "1E2|100",
        "1e21|1e+21",
        "1e-7|1e-7",
        "0.000001|0.000001",
        "5e-324|5e-324",
        "1.7976931348623157e308|1.7976931348623157e+308",
        "9007199254740992|9007199254740992",
        "18014398509481984|18014398509481984",
        // No double holds these: the exact value in the same layout.
        "1234567890123456789|1234567890123456789",
        "1234567890123456790|1234567890123456790",
        "-9007199254740993|-9007199254740993",
        "12345678901234567.89|12345678901234567.89",
        "12345678901234567.890|12345678901234567.89",
        "1234567890123456789e-2|12345678901234567.89",
        "0.1000000000000000000001|0.1000000000000000000001",
        "333333333.33333329|333333333.33333329",
        "12345678901234567890|12345678901234567890",
        "123456789012345678901234567890|1.2345678901234567890123456789e+29",
        "100000000000000000000000.1|1.000000000000000000000001e+23",
        "0.00000012345678901234567891|1.2345678901234567891e-7",
        "0.0000012345678901234567891|0.0000012345678901234567891",
        "3e-324|3e-324",
        "1.7976931348623158e308|1.7976931348623158e+308",
        "-1.00000000000000000001E-300|-1.00000000000000000001e-300",
        "1000000000000000000001.5|1.0000000000000000000015e+21",
        "-0.00100000000000000000000001000|-0.00100000000000000000000001",
        "100000000000000000000.0000000|100000000000000000000",
        "1.00000000000000000000e21|1e+21"
      })
  void numbersKeepTheirExactValueInTheEcmaScriptLayout(String number, String canonical)
      throws Exception {
    assertThat(exact(number)).isEqualTo(canonical);
    assertThat(exact("[" + number + "]")).isEqualTo("[" + canonical + "]");
    assertThat(exactFromParse(number)).isEqualTo("{\"n\":" + canonical + "}");
    assertThat(exactFromWire(number)).isEqualTo("{\"n\":" + canonical + "}");
  }

  @Test
  void rfc8785CanonicalizationStillRoundsThroughDoubles() {
    assertThat(rfc("[1234567890123456789, 12345678901234567.89, 9007199254740993]"))
        .isEqualTo("[1234567890123456800,12345678901234568,9007199254740992]");
    assertThat(rfc("333333333.33333329")).isEqualTo("333333333.3333333");
  }

  @Test
  void everyEcmaScriptRenderingOfADoubleIsItsOwnExactForm() {
    List<String> mismatches = new ArrayList<>();
    for (byte[] line : Resources.lines("/jcs/es-numbers.txt")) {
      String rendering = new String(Arrays.copyOfRange(line, 17, line.length), UTF_8);
      ByteSink sink = new ByteSink();
      ExactNumberFormat.write(new BigDecimal(rendering), sink);
      String written = new String(sink.toByteArray(), UTF_8);
      if (!written.equals(rendering) || !exact(rendering).equals(rendering)) {
        mismatches.add(rendering + " -> " + written);
      }
    }
    assertThat(mismatches).isEmpty();
  }

  @Test
  void rfc8785VectorsAreUnchangedExceptWhereTheyDropDigits() {
    for (String name : List.of("arrays", "french", "structures", "unicode", "weird")) {
      byte[] input = Resources.bytes("/jcs/input/" + name + ".json");
      assertThat(jcs.canonicalizeExact(input))
          .as(name)
          .isEqualTo(Resources.bytes("/jcs/output/" + name + ".json"));
    }
    // values.json spells a double with a 17th digit the double does not have; the exact form
    // keeps it, and nothing else differs.
    String rfcOutput = new String(Resources.bytes("/jcs/output/values.json"), UTF_8);
    assertThat(new String(jcs.canonicalizeExact(Resources.bytes("/jcs/input/values.json")), UTF_8))
        .isEqualTo(rfcOutput.replace("333333333.3333333", "333333333.33333329"));
  }

  @Test
  void parsedTreesHoldExactValuesOnlyWhereNoDoubleDoes() {
    JsonNode tree =
        jcs.parse(
            ("[1, 1.0, 1.5, 1e300, 1234567890123456789, 12345678901234567890123,"
                    + " 12345678901234567.890, 18014398509481984, 9007199254740993.0]")
                .getBytes(UTF_8));
    assertThat(tree.get(0)).isEqualTo(IntNode.valueOf(1));
    assertThat(tree.get(1)).isEqualTo(IntNode.valueOf(1));
    assertThat(tree.get(2)).isEqualTo(DoubleNode.valueOf(1.5));
    assertThat(tree.get(3)).isEqualTo(DoubleNode.valueOf(1e300));
    assertThat(tree.get(4)).isEqualTo(LongNode.valueOf(1234567890123456789L));
    assertThat(tree.get(5))
        .isEqualTo(BigIntegerNode.valueOf(new BigInteger("12345678901234567890123")));
    assertThat(tree.get(6)).isEqualTo(DecimalNode.valueOf(new BigDecimal("12345678901234567.89")));
    assertThat(tree.get(7)).isEqualTo(DoubleNode.valueOf(18014398509481984.0));
    assertThat(tree.get(8)).isEqualTo(LongNode.valueOf(9007199254740993L));
  }

  @Test
  void codeBuiltNumbersKeepTheirValues() {
    ObjectNode o = NODES.objectNode();
    o.put("long", Long.MAX_VALUE);
    o.put("float", 1.1f);
    o.put("bigint", new BigInteger("12345678901234567890"));
    o.put("bigdec", new BigDecimal("0.10000000000000000000001"));
    o.set("dec", DecimalNode.valueOf(new BigDecimal("100.000")));
    o.set("float2", FloatNode.valueOf(0.5f));
    o.put("double", 0.1);
    assertThat(new String(jcs.canonicalizeExact(o), UTF_8))
        .isEqualTo(
            "{\"bigdec\":0.10000000000000000000001,\"bigint\":12345678901234567890,\"dec\":100,"
                + "\"double\":0.1,\"float\":1.100000023841858,\"float2\":0.5,"
                + "\"long\":9223372036854775807}");
  }

  @ParameterizedTest
  @ValueSource(strings = {"1e400", "-1e309", "1.8e308", "2e-324", "1e-400", "-0.1e-999"})
  void numbersOutsideTheDoubleRangeAreStillRefused(String number) {
    CanonicalizationException parsed =
        assertThrows(CanonicalizationException.class, () -> exactFromParse(number));
    assertThat(parsed.code()).isEqualTo(Code.NUMBER_OUT_OF_RANGE);
    assertThat(parsed.pointer()).isEqualTo("/n");
    CanonicalizationException copied =
        assertThrows(CanonicalizationException.class, () -> exactFromWire(number));
    assertThat(copied.code()).isEqualTo(Code.NUMBER_OUT_OF_RANGE);
    assertThat(copied.pointer()).isEqualTo("/n");
  }

  @Test
  void moreThanAThousandSignificantDigitsAreRefusedWithoutEchoingThem() {
    String digits = "7".repeat(JsonNumbers.MAX_DIGITS);
    assertThat(exact("0." + digits)).isEqualTo("0." + digits);
    assertThat(exact("[0." + digits + "0".repeat(100_000) + "]")).isEqualTo("[0." + digits + "]");

    String tooMany = "0." + digits + "1";
    CanonicalizationException parsed =
        assertThrows(
            CanonicalizationException.class,
            () -> jcs.parse(("{\"n\":" + tooMany + "}").getBytes(UTF_8)));
    assertThat(parsed.code()).isEqualTo(Code.NUMBER_OUT_OF_RANGE);
    assertThat(parsed.pointer()).isEqualTo("/n");
    assertThat(parsed.getMessage()).contains("1000 significant digits").doesNotContain("777");

    CanonicalizationException huge =
        assertThrows(
            CanonicalizationException.class,
            () -> jcs.parse(("[0." + "1".repeat(1_000_000) + "]").getBytes(UTF_8)));
    assertThat(huge.code()).isEqualTo(Code.NUMBER_OUT_OF_RANGE);

    ObjectNode built = NODES.objectNode();
    built.put("n", new BigDecimal(tooMany));
    CanonicalizationException copied =
        assertThrows(
            CanonicalizationException.class,
            () -> normalizer.normalize(built, FingerprintRules.NONE));
    assertThat(copied.code()).isEqualTo(Code.NUMBER_OUT_OF_RANGE);
    assertThat(copied.pointer()).isEqualTo("/n");
  }

  @Test
  void twoNumbersShareCanonicalBytesIfAndOnlyIfTheirValuesAreEqual() throws Exception {
    Random random = new Random(11);
    for (int i = 0; i < 3000; i++) {
      BigDecimal x = randomValue(random);
      BigDecimal y = random.nextBoolean() ? neighbour(x, random) : randomValue(random);
      String xs = spell(x, random);
      String ys = random.nextInt(4) == 0 ? spell(x, random) : spell(y, random);
      BigDecimal yValue = new BigDecimal(ys);
      String cx = exactFromParse(xs);
      String cy = exactFromParse(ys);
      assertThat(cx.equals(cy))
          .as("%s and %s: %s vs %s", xs, ys, cx, cy)
          .isEqualTo(x.compareTo(yValue) == 0);
      // The canonical bytes are a JSON number of the same value, whichever path built the tree.
      BigDecimal written = new BigDecimal(cx.substring(5, cx.length() - 1));
      assertThat(written.compareTo(x)).as("%s -> %s", xs, cx).isZero();
      assertThat(exactFromWire(xs)).as(xs).isEqualTo(cx);
      // Where the value is a double's rendering, the bytes are RFC 8785's.
      if (isRenderingOfItsDouble(x)) {
        assertThat(cx).as(xs).isEqualTo(rfc("{\"n\":" + xs + "}"));
      }
    }
  }

  private static boolean isRenderingOfItsDouble(BigDecimal x) {
    ByteSink sink = new ByteSink();
    EsNumberFormat.write(x.doubleValue(), sink);
    return new BigDecimal(new String(sink.toByteArray(), UTF_8)).compareTo(x) == 0;
  }

  /** A value in the double range: short and long decimals, renderings and exact binary values. */
  private static BigDecimal randomValue(Random r) {
    switch (r.nextInt(5)) {
      case 0:
        return BigDecimal.valueOf(r.nextInt(2001) - 1000, r.nextInt(4));
      case 1:
        {
          double d = r.nextGaussian() * Math.pow(10, r.nextInt(60) - 30);
          ByteSink sink = new ByteSink();
          EsNumberFormat.write(d, sink);
          return new BigDecimal(new String(sink.toByteArray(), UTF_8));
        }
      case 2:
        return new BigDecimal(r.nextGaussian() * Math.pow(10, r.nextInt(40) - 20));
      default:
        StringBuilder digits = new StringBuilder().append(1 + r.nextInt(9));
        for (int i = r.nextInt(30); i > 0; i--) {
          digits.append(r.nextInt(10));
        }
        BigInteger unscaled = new BigInteger(digits.toString());
        return new BigDecimal(r.nextBoolean() ? unscaled : unscaled.negate(), r.nextInt(60) - 30);
    }
  }

  /** A value that differs from {@code x} in one digit at or past its last one. */
  private static BigDecimal neighbour(BigDecimal x, Random r) {
    BigDecimal unit = BigDecimal.ONE.movePointLeft(x.scale() + r.nextInt(3));
    return r.nextBoolean() ? x.add(unit) : x.subtract(unit);
  }

  /** A random JSON spelling of {@code v}: exponent shifts, trailing zeros, e/E, signs. */
  private static String spell(BigDecimal v, Random r) {
    BigDecimal padded = v.setScale(v.scale() + r.nextInt(3));
    int shift = r.nextInt(9) - 4;
    String mantissa = padded.movePointRight(shift).toPlainString();
    if (shift == 0 && r.nextBoolean()) {
      return mantissa;
    }
    return mantissa
        + (r.nextBoolean() ? "e" : "E")
        + (-shift >= 0 && r.nextBoolean() ? "+" : "")
        + (-shift);
  }
}
