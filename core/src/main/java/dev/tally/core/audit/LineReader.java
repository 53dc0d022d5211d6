package dev.tally.core.audit;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Splits a journal into lines, remembering each line's byte offset. The last segment of a file that
 * does not end with {@code \n} is returned with {@code terminated == false}. A line longer than
 * {@link EntryCodec#MAX_LINE_BYTES} is returned with {@code tooLong == true} and without its bytes.
 */
final class LineReader implements Closeable {

  /** One line, without its newline. */
  record Line(long offset, byte[] bytes, boolean terminated, boolean tooLong) {}

  private final InputStream in;
  private final byte[] buf = new byte[64 * 1024];
  private int pos;
  private int limit;
  private long offset;
  private boolean eof;

  LineReader(InputStream in, long startOffset) {
    this.in = in;
    this.offset = startOffset;
  }

  /** The next line, or {@code null} at the end. */
  Line next() throws IOException {
    long start = offset;
    byte[] acc = new byte[256];
    int len = 0;
    boolean tooLong = false;
    while (true) {
      if (pos == limit) {
        if (eof || !fill()) {
          if (len == 0 && !tooLong) {
            return null;
          }
          return new Line(start, tooLong ? new byte[0] : Arrays.copyOf(acc, len), false, tooLong);
        }
      }
      int nl = -1;
      for (int i = pos; i < limit; i++) {
        if (buf[i] == '\n') {
          nl = i;
          break;
        }
      }
      int end = nl < 0 ? limit : nl;
      int n = end - pos;
      if (!tooLong) {
        if (len + n > EntryCodec.MAX_LINE_BYTES) {
          tooLong = true;
        } else {
          if (len + n > acc.length) {
            acc = Arrays.copyOf(acc, Math.max(acc.length * 2, len + n));
          }
          System.arraycopy(buf, pos, acc, len, n);
          len += n;
        }
      }
      offset += n;
      pos = end;
      if (nl >= 0) {
        pos++;
        offset++;
        return new Line(start, tooLong ? new byte[0] : Arrays.copyOf(acc, len), true, tooLong);
      }
    }
  }

  private boolean fill() throws IOException {
    int n = in.read(buf);
    if (n <= 0) {
      eof = true;
      return false;
    }
    pos = 0;
    limit = n;
    return true;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
