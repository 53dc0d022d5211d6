package dev.tally.core.canonical;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.DoubleNode;
import java.util.ArrayList;
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
    for (byte[] line : Resources.lines("/jcs/es-numbers.txt")) {
      String s = new String(line, UTF_8);
      String expected = s.substring(s.indexOf(' ') + 1);
      assertThat(new String(jcs.canonicalize(expected.getBytes(UTF_8)), UTF_8)).isEqualTo(expected);
    }
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

  @Test
  void sumOfPointOneAndPointTwoIsNotPointThree() {
    assertThat(format(0.1 + 0.2)).isEqualTo("0.30000000000000004");
  }
}
