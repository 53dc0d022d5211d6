package dev.tally.filter;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.call.ListingFilter;
import dev.tally.core.mcp.MediaTypes;
import dev.tally.core.mcp.SseEvent;
import dev.tally.core.mcp.SseParser;
import dev.tally.core.mcp.SseWriter;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;

/**
 * The response to a {@code tools/list} whose caller may not see every tool (write control, issue
 * 18): the answer reaches the client without the tools core's {@link ListingFilter} takes out, the
 * same rule the sidecar applies to the bytes it relays. An event stream is rewritten event by event
 * as each completes (flushes pass through); a JSON body is held until the servlet ends the answer
 * ({@link #finish}: the stream closed, the synchronous chain returned, or the async context
 * completed). {@code Content-Length} is never set, as the filtered body is shorter. Any other
 * content type passes unchanged. An answer above {@code limit} bytes passes unchanged (nothing can
 * be rewritten without reading it whole; such a listing is not a real one).
 */
final class ListingResponse extends HttpServletResponseWrapper {
  private final JsonNode requestId;
  private final Predicate<String> shown;
  private final int limit;
  private ServletOutputStream stream;
  private PrintWriter writer;
  private boolean decided;
  private SseParser sse;
  private ByteArrayOutputStream held;
  private boolean finished;

  ListingResponse(
      HttpServletResponse response, JsonNode requestId, Predicate<String> shown, int limit) {
    super(response);
    this.requestId = requestId;
    this.shown = shown;
    this.limit = limit;
  }

  @Override
  public void setContentLength(int len) {}

  @Override
  public void setContentLengthLong(long len) {}

  @Override
  public void setHeader(String name, String value) {
    if (!"Content-Length".equalsIgnoreCase(name)) {
      super.setHeader(name, value);
    }
  }

  @Override
  public void addHeader(String name, String value) {
    if (!"Content-Length".equalsIgnoreCase(name)) {
      super.addHeader(name, value);
    }
  }

  @Override
  public void setIntHeader(String name, int value) {
    if (!"Content-Length".equalsIgnoreCase(name)) {
      super.setIntHeader(name, value);
    }
  }

  @Override
  public ServletOutputStream getOutputStream() throws IOException {
    if (writer != null) {
      throw new IllegalStateException("getWriter() was already called");
    }
    if (stream == null) {
      stream = new Held();
    }
    return stream;
  }

  @Override
  public PrintWriter getWriter() throws IOException {
    if (stream != null && writer == null) {
      throw new IllegalStateException("getOutputStream() was already called");
    }
    if (writer == null) {
      String enc = getCharacterEncoding();
      Charset cs = enc == null ? StandardCharsets.UTF_8 : Charset.forName(enc);
      stream = new Held();
      writer = new PrintWriter(new OutputStreamWriter(stream, cs), false);
    }
    return writer;
  }

  @Override
  public void flushBuffer() throws IOException {
    if (writer != null) {
      writer.flush();
    }
    if (held == null) {
      super.flushBuffer();
    }
  }

  @Override
  public boolean isCommitted() {
    return held == null && super.isCommitted();
  }

  /** The servlet ended its answer: a held JSON body goes out now, filtered. Idempotent. */
  synchronized void finish() {
    if (finished) {
      return;
    }
    if (writer != null) {
      writer.flush();
    }
    finished = true;
    try {
      if (sse != null) {
        sse.end();
      } else if (held != null) {
        byte[] out = ListingFilter.filter(held.toByteArray(), requestId, shown);
        held = null;
        ServletOutputStream o = super.getOutputStream();
        o.write(out);
        o.flush();
      }
    } catch (IOException e) {
      // The client went away; nothing is recorded for a listing.
    }
  }

  /** An async context whose {@code complete()} first lets a held answer out. */
  AsyncContext completing(AsyncContext ac) {
    ac.addListener(
        new AsyncListener() {
          @Override
          public void onComplete(AsyncEvent event) {
            finish();
          }

          @Override
          public void onTimeout(AsyncEvent event) {
            finish();
          }

          @Override
          public void onError(AsyncEvent event) {}

          @Override
          public void onStartAsync(AsyncEvent event) {}
        });
    return new CompletingAsync(ac, this::finish);
  }

  private synchronized void accept(byte[] b, int off, int len) throws IOException {
    if (finished) {
      return;
    }
    if (!decided) {
      decided = true;
      String type = MediaTypes.essence(getContentType());
      if (type.equals(MediaTypes.SSE)) {
        sse = SseParser.create(this::event, limit);
      } else if (type.equals(MediaTypes.JSON)) {
        held = new ByteArrayOutputStream();
      } else {
      }
    }
    if (sse != null) {
      sse.feed(b, off, len);
    } else if (held != null) {
      if (held.size() + len > limit) {
        byte[] so = held.toByteArray();
        held = null;
        super.getOutputStream().write(so);
        super.getOutputStream().write(b, off, len);
        return;
      }
      held.write(b, off, len);
    } else {
      super.getOutputStream().write(b, off, len);
    }
  }

  private void event(SseEvent e) {
    if (e.truncated()) {
      return; // its data is lost past the limit: nothing sensible to pass on
    }
    byte[] data = e.hasData() ? ListingFilter.filter(e.data(), requestId, shown) : e.data();
    try {
      super.getOutputStream()
          .write(SseWriter.encode(new SseEvent(e.id(), e.type(), data, e.retry(), false)));
    } catch (IOException x) {
      throw new java.io.UncheckedIOException(x);
    }
  }

  private synchronized void flushOut() throws IOException {
    if (held == null && !finished) {
      super.getOutputStream().flush();
    }
  }

  /** What the servlet writes to: everything goes to {@link #accept}. */
  private final class Held extends ServletOutputStream {
    private final byte[] one = new byte[1];

    @Override
    public void write(int b) throws IOException {
      one[0] = (byte) b;
      write(one, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      try {
        accept(b, off, len);
      } catch (java.io.UncheckedIOException e) {
        throw e.getCause();
      }
    }

    @Override
    public void flush() throws IOException {
      flushOut();
    }

    @Override
    public void close() throws IOException {
      finish();
    }

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public void setWriteListener(WriteListener writeListener) {
      try {
        writeListener.onWritePossible();
      } catch (IOException e) {
        writeListener.onError(e);
      }
    }
  }
}
