package dev.tally.core.canonical;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tally.core.testing.FuzzBudget;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzzing (Jazzer) of the RFC 8785 canonicalizer (issue 21). Properties: an input
 * is refused with {@link CanonicalizationException} and a message, or canonicalized, never any
 * other exception; the canonical form is valid UTF-8, a fixed point of itself, and the same whether
 * reached from the bytes or from the parsed tree. How to run it: {@code
 * core/src/test/resources/fuzz/README.md}.
 */
class JcsFuzzing {
  private static final Jcs JCS = Jcs.create();

  @FuzzTest(maxDuration = FuzzBudget.CI)
  void canonicalFormIsAFixedPointOrARefusal(byte[] doc) {
    byte[] once;
    try {
      once = JCS.canonicalize(doc);
    } catch (CanonicalizationException refused) {
      assertThat(refused.getMessage()).isNotBlank();
      return;
    }
    assertThat(Utf8Scan.scan(once, 0, once.length)).isNegative();
    assertThat(new String(once, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8))
        .isEqualTo(once);
    assertThat(JCS.canonicalize(once)).isEqualTo(once);
    assertThat(JCS.canonicalize(JCS.parse(doc))).isEqualTo(once);
  }
}
