package dev.tally.core.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The writer's and the verifier's halves of the line format agree. */
class EntryCodecTest {

  @Test
  void completeLineWritesTheLineTheVerifierExpects() {
    Random rnd = new Random(1);
    for (String canonical :
        new String[] {"{}", "{\"a\":1}", "{\"actor\":\"Zoë \\\"z\\\"\",\"seq\":12,\"v\":1}"}) {
      byte[] bytes = canonical.getBytes(StandardCharsets.UTF_8);
      byte[] hash = new byte[32];
      rnd.nextBytes(hash);
      LineBuffer out = new LineBuffer(1);
      out.put(new byte[] {'x', '\n'});
      out.put(bytes);
      EntryCodec.completeLine(out, 2, hash);

      byte[] expected = EntryCodec.line(bytes, Hashes.hex(hash));
      expected = Arrays.copyOf(expected, expected.length + 1);
      expected[expected.length - 1] = '\n';
      assertThat(out.toByteArray(2)).isEqualTo(expected);
      assertThat(out.toByteArray(0)[0]).isEqualTo((byte) 'x');
    }
  }

  @Test
  void completeLineRefusesWhatIsNotAnObject() {
    LineBuffer out = new LineBuffer(8);
    out.put("[1]".getBytes(StandardCharsets.US_ASCII));
    assertThatThrownBy(() -> EntryCodec.completeLine(out, 0, new byte[32]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(out.size()).isEqualTo(3);
  }
}
