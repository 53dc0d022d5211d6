package dev.tally.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SqlTextTest {
  @Test
  void plainStringsAreStoredAsTheyAre() {
    for (String s : List.of("", "create_ticket", "actor:alice", "100% sure", "😀 emoji", "a\nb")) {
      assertThat(SqlText.encode(s)).isEqualTo(s);
      assertThat(SqlText.decode(s)).isEqualTo(s);
    }
    assertThat(SqlText.encode(null)).isNull();
    assertThat(SqlText.decode(null)).isNull();
  }

  @Test
  void nulAndUnpairedSurrogatesRoundTripWithoutEitherInTheStoredForm() {
    for (String s :
        List.of(
            "a\u0000b", "\uD800", "x\uDC00y", "\uD83D", "%00\u0000", "\uFFFFmarked", "\uFFFF")) {
      String stored = SqlText.encode(s);
      assertThat(stored).startsWith("\uFFFF").doesNotContain("\u0000");
      assertThat(hasLoneSurrogate(stored)).as(stored).isFalse();
      assertThat(SqlText.decode(stored)).isEqualTo(s);
    }
  }

  @Test
  void randomStringsRoundTrip() {
    Random random = new Random(42);
    char[] alphabet = {'a', '%', '\u0000', '\uD800', '\uDC00', '\uFFFF', '0', 'u'};
    for (int n = 0; n < 5_000; n++) {
      StringBuilder b = new StringBuilder();
      int len = random.nextInt(12);
      for (int i = 0; i < len; i++) {
        b.append(alphabet[random.nextInt(alphabet.length)]);
      }
      String s = b.toString();
      String stored = SqlText.encode(s);
      assertThat(stored).doesNotContain("\u0000");
      assertThat(hasLoneSurrogate(stored)).isFalse();
      assertThat(SqlText.decode(stored)).isEqualTo(s);
    }
  }

  @Test
  void malformedEscapesAreRefused() {
    assertThatThrownBy(() -> SqlText.decode("\uFFFF%zz"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("malformed escape");
    assertThatThrownBy(() -> SqlText.decode("\uFFFF%u12")).hasMessageContaining("offset 1");
  }

  private static boolean hasLoneSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return true;
      }
    }
    return false;
  }
}
