package dev.tally.core.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The audit writer's fast canonical form equals RFC 8785 ({@link Canonicalizer#jcs()}). */
class FlatCanonicalizerTest {
  private static final Canonicalizer JCS = Canonicalizer.jcs();
  private static final String ALPHABET = "aZ09 _-:\"\\/\u007f\u00e9\u00a0\u0100\u20ac\u6771\uffff";

  private static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  @Test
  void flatObjectsOfStringsAndIntegersMatchJcs() {
    ObjectNode o = object();
    o.put("sin", "ignore locale");
    o.put("péché", 2);
    o.put("peach", -3);
    o.put("pêche", "A\u030a");
    o.put("\u20ac", "q\"b\\s/\u007f");
    o.put("max", 9007199254740991L);
    o.put("min", -9007199254740991L);
    o.put("zero", 0);
    o.put("", "");
    assertThat(new String(FlatCanonicalizer.canonicalize(o), StandardCharsets.UTF_8))
        .isEqualTo(new String(JCS.canonicalize(o), StandardCharsets.UTF_8));
  }

  @Test
  void randomFlatObjectsMatchJcs() {
    Random rnd = new Random(8785);
    for (int round = 0; round < 2_000; round++) {
      ObjectNode o = object();
      int members = rnd.nextInt(12);
      for (int m = 0; m < members; m++) {
        String name = random(rnd, 6);
        if (rnd.nextBoolean()) {
          o.put(name, random(rnd, 20));
        } else {
          o.put(name, rnd.nextLong() >> rnd.nextInt(64));
        }
      }
      byte[] fast = FlatCanonicalizer.canonicalize(o);
      if (fast != null) {
        assertThat(fast).as("%s", o).isEqualTo(JCS.canonicalize(o));
      }
    }
  }

  @Test
  void anythingElseIsLeftToTheGeneralCanonicalizer() {
    assertThat(FlatCanonicalizer.canonicalize(withValue("\u0001"))).isNull();
    assertThat(FlatCanonicalizer.canonicalize(withValue("\ud83d\ude02"))).isNull();
    assertThat(FlatCanonicalizer.canonicalize(withValue("\ud800"))).isNull();
    ObjectNode nested = object();
    nested.putObject("o").put("a", 1);
    assertThat(FlatCanonicalizer.canonicalize(nested)).isNull();
    assertThat(FlatCanonicalizer.canonicalize(object().put("f", 1.5))).isNull();
    assertThat(FlatCanonicalizer.canonicalize(object().put("big", 1L << 53))).isNull();
    assertThat(FlatCanonicalizer.canonicalize(object().put("b", true))).isNull();
    assertThat(FlatCanonicalizer.canonicalize(object().putNull("n"))).isNull();
  }

  private static ObjectNode withValue(String v) {
    return object().put("k", v);
  }

  private static String random(Random rnd, int maxLength) {
    StringBuilder b = new StringBuilder();
    int n = rnd.nextInt(maxLength + 1);
    for (int i = 0; i < n; i++) {
      b.append(ALPHABET.charAt(rnd.nextInt(ALPHABET.length())));
    }
    return b.toString();
  }
}
