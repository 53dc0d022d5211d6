package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Utf8TapTest {
  @Test
  void encodesLikeTheJdkIncludingPairsSplitAcrossWrites() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BodyTap sink =
        new BodyTap() {
          @Override
          public void bytes(byte[] b, int off, int len) {
            out.write(b, off, len);
          }

          @Override
          public void writeFailed() {}

          @Override
          public void flushed(boolean ok) {}
        };
    Utf8Tap tap = new Utf8Tap(sink);
    String text = "a é € 😀 " + "x".repeat(5000) + " 世界";
    char[] c = text.toCharArray();
    int emoji = text.indexOf("😀");
    tap.chars(c, 0, emoji + 1);
    tap.chars(text, emoji + 1, text.length() - emoji - 1);

    assertThat(out.toByteArray()).isEqualTo(text.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aLoneSurrogateBecomesAQuestionMarkLikeTheJdk() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Utf8Tap tap =
        new Utf8Tap(
            new BodyTap() {
              @Override
              public void bytes(byte[] b, int off, int len) {
                out.write(b, off, len);
              }

              @Override
              public void writeFailed() {}

              @Override
              public void flushed(boolean ok) {}
            });
    tap.chars("a\uDC00b\uD800c", 0, 5);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("a?b?c");
  }
}
