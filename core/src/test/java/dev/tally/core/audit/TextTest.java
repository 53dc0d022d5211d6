package dev.tally.core.audit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TextTest {
  @Test
  void plainStringsAreKeptAsTheyAre() {
    String s = "alice@example.com Zoë 東京 😂";
    assertThat(Text.clean(s, 100)).isSameAs(s);
  }

  @Test
  void controlCharactersAndLoneSurrogatesBecomeReplacementCharacters() {
    assertThat(Text.clean("a\nb\u001b[31mc\u007fd\u0085e", 100))
        .isEqualTo("a\uFFFDb\uFFFD[31mc\uFFFDd\uFFFDe");
    assertThat(Text.clean("x\uD83Dy\uDE02z", 100)).isEqualTo("x\uFFFDy\uFFFDz");
  }

  @Test
  void longStringsAreCutAndMarkedNeverInsideASurrogatePair() {
    assertThat(Text.clean("abcdefghij", 8)).isEqualTo("abcde...");
    assertThat(Text.clean("abcd😂xyz", 8)).isEqualTo("abcd...");
    assertThat(Text.clean("abcdefghij", 10)).isEqualTo("abcdefghij");
    assertThat(Text.clean(null, 10)).isNull();
  }
}
