package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

class FilterEngineTest {
  private static InputStream trickle(byte[] b) {
    return new ByteArrayInputStream(b) {
      @Override
      public synchronized int read(byte[] dst, int off, int len) {
        return super.read(dst, off, Math.min(len, 3));
      }
    };
  }

  @Test
  void readsBodiesOfDeclaredOrUnknownLengthInPieces() throws Exception {
    byte[] body = "{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}".getBytes();
    assertThat(FilterEngine.readBody(trickle(body), 100, body.length)).isEqualTo(body);
    assertThat(FilterEngine.readBody(trickle(body), 100, -1)).isEqualTo(body);
    assertThat(FilterEngine.readBody(trickle(body), 100, 4)).isEqualTo(body);
    assertThat(FilterEngine.readBody(trickle(new byte[0]), 100, 0)).isEmpty();
  }

  @Test
  void bodiesOverTheLimitAreNullWhateverTheyDeclare() throws Exception {
    byte[] body = new byte[5000];
    assertThat(FilterEngine.readBody(trickle(body), 4999, -1)).isNull();
    assertThat(FilterEngine.readBody(trickle(body), 4999, 10)).isNull();
    assertThat(FilterEngine.readBody(trickle(body), 5000, -1)).hasSize(5000);
  }
}
