package dev.tally.filter;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;

/**
 * The response as the servlet sees it for a dispatched call: every byte and character goes to the
 * container at once (streaming, {@code flushBuffer()} and the container's own buffering are
 * untouched) and is shown to a {@link BodyTap} on the way, together with the fate of each write and
 * flush.
 */
final class ObservedResponse extends HttpServletResponseWrapper {
  private final BodyTap tap;
  private ServletOutputStream stream;
  private PrintWriter writer;

  ObservedResponse(HttpServletResponse response, BodyTap tap) {
    super(response);
    this.tap = tap;
  }

  @Override
  public ServletOutputStream getOutputStream() throws IOException {
    if (writer != null) {
      throw new IllegalStateException("getWriter() was already called");
    }
    if (stream == null) {
      stream = new TapStream(super.getOutputStream(), tap);
    }
    return stream;
  }

  @Override
  public PrintWriter getWriter() throws IOException {
    if (stream != null) {
      throw new IllegalStateException("getOutputStream() was already called");
    }
    if (writer == null) {
      writer = new PrintWriter(new TapWriter(super.getWriter(), tap), false);
    }
    return writer;
  }

  @Override
  public void flushBuffer() throws IOException {
    if (writer != null) {
      writer.flush();
    }
    try {
      super.flushBuffer();
    } catch (IOException e) {
      tap.flushed(false);
      throw e;
    }
    tap.flushed(true);
  }

  /** Tees bytes to the tap; write failures mean the client is gone. */
  private static final class TapStream extends ServletOutputStream {
    private final ServletOutputStream out;
    private final BodyTap tap;
    private final byte[] one = new byte[1];

    TapStream(ServletOutputStream out, BodyTap tap) {
      this.out = out;
      this.tap = tap;
    }

    @Override
    public void write(int b) throws IOException {
      one[0] = (byte) b;
      write(one, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      tap.bytes(b, off, len);
      tap.beforeWrite();
      try {
        out.write(b, off, len);
      } catch (IOException e) {
        tap.writeFailed();
        throw e;
      }
    }

    @Override
    public void flush() throws IOException {
      try {
        out.flush();
      } catch (IOException e) {
        tap.flushed(false);
        throw e;
      }
      tap.flushed(true);
    }

    @Override
    public void close() throws IOException {
      try {
        out.close();
      } catch (IOException e) {
        tap.writeFailed();
        throw e;
      }
    }

    @Override
    public boolean isReady() {
      return out.isReady();
    }

    @Override
    public void setWriteListener(WriteListener writeListener) {
      out.setWriteListener(writeListener);
    }
  }

  /**
   * Tees characters (as UTF-8) to the tap and writes them to the container's writer. The
   * container's writer swallows I/O errors and reports them through {@code checkError()}, which is
   * asked after every flush; a failure is thrown so that the wrapping {@link PrintWriter} reports
   * it through its own {@code checkError()} to the servlet.
   */
  private static final class TapWriter extends Writer {
    private final PrintWriter out;
    private final BodyTap tap;
    private final Utf8Tap utf8;

    TapWriter(PrintWriter out, BodyTap tap) {
      this.out = out;
      this.tap = tap;
      this.utf8 = new Utf8Tap(tap);
    }

    @Override
    public void write(char[] c, int off, int len) {
      utf8.chars(c, off, len);
      tap.beforeWrite();
      out.write(c, off, len);
    }

    @Override
    public void write(String s, int off, int len) {
      utf8.chars(s, off, len);
      tap.beforeWrite();
      out.write(s, off, len);
    }

    @Override
    public void write(int c) {
      write(new char[] {(char) c}, 0, 1);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
      boolean failed = out.checkError();
      tap.flushed(!failed);
      if (failed) {
        throw new IOException("the client connection failed");
      }
    }

    @Override
    public void close() throws IOException {
      out.close();
      if (out.checkError()) {
        tap.writeFailed();
        throw new IOException("the client connection failed");
      }
    }
  }
}
