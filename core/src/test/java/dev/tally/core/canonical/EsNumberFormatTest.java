package dev.tally.core.canonical;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.DoubleNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EsNumberFormatTest {
  private final Jcs jcs = Jcs.create();

  private static String format(double d) {
    ByteSink sink = new ByteSink();
    EsNumberFormat.write(d, sink);
    return new String(sink.toByteArray(), UTF_8);
  }

  @Test
  void matchesEcmaScriptOnEveryGeneratedDouble() {
    List<byte[]> lines = Resources.lines("/jcs/es-numbers.txt");
    assertThat(lines).hasSizeGreaterThan(20_000);
    List<String> mismatches = new ArrayList<>();
    for (byte[] line : lines) {
      String s = new String(line, UTF_8);
      int space = s.indexOf(' ');
      double d = Double.longBitsToDouble(Long.parseUnsignedLong(s.substring(0, space), 16));
      String expected = s.substring(space + 1);
      String actual = format(d);
      if (!actual.equals(expected)) {
        mismatches.add(s.substring(0, space) + " expected " + expected + " got " + actual);
      }
    }
    assertThat(mismatches).isEmpty();
  }

  @Test
  void ecmaScriptSpellingsRoundTripThroughParseAndCanonicalize() {
    List<String> mismatches = new ArrayList<>();
    for (byte[] line : Resources.lines("/jcs/es-numbers.txt")) {
      byte[] expected = Arrays.copyOfRange(line, 17, line.length);
      if (!Arrays.equals(jcs.canonicalize(expected), expected)) {
        mismatches.add(new String(line, UTF_8));
      }
    }
    assertThat(mismatches).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "0.0|0",
        "-0.0|0",
        "1.0|1",
        "-1.5|-1.5",
        "0.1|0.1",
        "1e21|1e+21",
        "999999999999999900000|999999999999999900000",
        "1e-6|0.000001",
        "1e-7|1e-7",
        "1.2345e-7|1.2345e-7",
        "123e-20|1.23e-18",
        "1e23|1e+23",
        "4.9e-324|5e-324",
        "1.7976931348623157e308|1.7976931348623157e+308",
        "9007199254740993|9007199254740992",
        "18014398509481984|18014398509481984",
        "295147905179352830000|295147905179352830000",
        "2.5e-323|2.5e-323",
        "333333333.33333329|333333333.3333333"
      })
  void formatsTheClassicCases(double d, String expected) {
    assertThat(format(d)).isEqualTo(expected);
    assertThat(new String(jcs.canonicalize(DoubleNode.valueOf(d)), UTF_8)).isEqualTo(expected);
  }

  private static String shortest(double d) {
    ByteSink sink = new ByteSink();
    EsNumberFormat.writeShortest(d, sink);
    return new String(sink.toByteArray(), UTF_8);
  }

  @Test
  void shortDecimalPathAgreesWithTheGeneralPath() {
    java.util.Random random = new java.util.Random(5);
    double[] scales = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 3, 7, 1024};
    List<String> mismatches = new ArrayList<>();
    for (int i = 0; i < 40_000; i++) {
      double d;
      switch (i % 4) {
        case 0:
          d = (random.nextInt(2_000_001) - 1_000_000) / scales[random.nextInt(scales.length)];
          break;
        case 1:
          d = random.nextLong() / Math.pow(10, random.nextInt(20));
          break;
        case 2:
          d = Double.parseDouble("0." + "0".repeat(random.nextInt(8)) + (1 + random.nextInt(999)));
          break;
        default:
          d = Math.nextUp(Math.pow(10, random.nextInt(30) - 8) * (random.nextBoolean() ? 1 : 3));
      }
      if (!format(d).equals(shortest(d))) {
        mismatches.add(d + ": " + format(d) + " vs " + shortest(d));
      }
    }
    assertThat(mismatches).isEmpty();
    for (double d :
        new double[] {
          1e-6, 1.5e-6, 9.99999e-7, 0x1p50, Math.nextDown(0x1p50), 1125899906842623.5
        }) {
      assertThat(format(d)).as("%s", d).isEqualTo(shortest(d));
      assertThat(format(-d)).as("%s", -d).isEqualTo(shortest(-d));
    }
  }

  @Test
  void sumOfPointOneAndPointTwoIsNotPointThree() {
    assertThat(format(0.1 + 0.2)).isEqualTo("0.30000000000000004");
  }
}
