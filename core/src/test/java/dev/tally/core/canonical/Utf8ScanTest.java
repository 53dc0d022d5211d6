package dev.tally.core.canonical;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Utf8ScanTest {
  private final CharsetDecoder decoder =
      UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);

  private boolean jdkAccepts(byte[] b) {
    try {
      decoder.reset().decode(ByteBuffer.wrap(b));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  @Test
  void findsABadByteAtEveryOffsetOfTheWordLoop() {
    for (int at = 0; at < 24; at++) {
      for (byte bad : new byte[] {0, (byte) 0x80, (byte) 0xC0, (byte) 0xFF, (byte) 0xED}) {
        byte[] b = new byte[24];
        Arrays.fill(b, (byte) 'a');
        b[at] = bad;
        assertThat(Utf8Scan.scan(b)).as("byte %02x at %d", bad, at).isEqualTo(at);
      }
    }
  }

  @Test
  void notesBackslashUAtEveryOffset() {
    for (int at = 0; at < 23; at++) {
      byte[] b = new byte[24];
      Arrays.fill(b, (byte) 'a');
      b[at] = '\\';
      assertThat(Utf8Scan.scan(b)).isEqualTo(Utf8Scan.VALID_NO_ESCAPES);
      b[at + 1] = 'u';
      assertThat(Utf8Scan.scan(b)).isEqualTo(Utf8Scan.VALID);
    }
  }

  @Test
  void acceptsValidMultiByteSequencesAtEveryOffset() {
    byte[] seq = "é€\uD83D\uDE02".getBytes(UTF_8);
    for (int at = 0; at < 16; at++) {
      byte[] b = new byte[at + seq.length + 9];
      Arrays.fill(b, (byte) 'x');
      System.arraycopy(seq, 0, b, at, seq.length);
      assertThat(Utf8Scan.scan(b)).isEqualTo(Utf8Scan.VALID_NO_ESCAPES);
    }
  }

  @Test
  void agreesWithTheJdkDecoderOnRandomBytes() {
    Random random = new Random(3);
    int accepted = 0;
    for (int i = 0; i < 10_000; i++) {
      byte[] b = new byte[1 + random.nextInt(20)];
      for (int k = 0; k < b.length; k++) {
        int r = random.nextInt(10);
        b[k] =
            (byte)
                (r < 5
                    ? 'a' + random.nextInt(26)
                    : r < 8 ? 0x80 + random.nextInt(64) : 0xC0 + random.nextInt(64));
      }
      boolean ours = Utf8Scan.scan(b) < 0;
      if (ours != jdkAccepts(b)) {
        fail("scan says " + (ours ? "valid" : "invalid") + ": " + Arrays.toString(b));
      }
      accepted += ours ? 1 : 0;
    }
    assertThat(accepted).isGreaterThan(200);
  }
}
