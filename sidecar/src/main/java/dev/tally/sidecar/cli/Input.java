package dev.tally.sidecar.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/** Bounded reading of stdin. */
final class Input {
  private Input() {}

  /** Thrown when the input exceeds the bound. */
  static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;
  }

  static byte[] readAll(InputStream in, int max) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    int n;
    while ((n = in.read(buf)) != -1) {
      if (b.size() + n > max) {
        throw new TooLarge();
      }
      b.write(buf, 0, n);
    }
    return b.toByteArray();
  }
}
