package dev.tally.core.canonical;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** Test resources read as bytes (JCS vectors must not be re-encoded). */
final class Resources {
  private Resources() {}

  static byte[] bytes(String name) {
    try (InputStream in = Resources.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource " + name);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The resource split at '\n' bytes (a final empty line is dropped). */
  static List<byte[]> lines(String name) {
    byte[] all = bytes(name);
    List<byte[]> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < all.length; i++) {
      if (all[i] == '\n') {
        lines.add(java.util.Arrays.copyOfRange(all, start, i));
        start = i + 1;
      }
    }
    if (start < all.length) {
      lines.add(java.util.Arrays.copyOfRange(all, start, all.length));
    }
    return lines;
  }
}
