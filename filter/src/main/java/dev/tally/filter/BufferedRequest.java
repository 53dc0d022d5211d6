package dev.tally.filter;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The request as the servlet sees it after the filter read its body: the body (the bytes read, or a
 * rewritten body) can be read again as a stream or a reader, optionally one header is replaced, and
 * {@code startAsync()} keeps this wrapper and the response wrapper in the {@link AsyncContext}.
 */
final class BufferedRequest extends HttpServletRequestWrapper {
  private final byte[] body;

  /** Headers set by Tally (idempotency key, traceparent), names case-insensitive. */
  private final Map<String, String> extra;

  private ServletResponse asyncResponse;
  private Consumer<AsyncContext> onAsyncStart;
  private java.util.function.UnaryOperator<AsyncContext> asyncWrapper = ac -> ac;
  private boolean streamTaken;
  private boolean readerTaken;

  BufferedRequest(HttpServletRequest request, byte[] body, Map<String, String> headers) {
    super(request);
    this.body = body;
    TreeMap<String, String> m = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    headers.forEach(
        (k, v) -> {
          if (k != null && v != null) {
            m.put(k, v);
          }
        });
    this.extra = m;
  }

  BufferedRequest(HttpServletRequest request, byte[] body) {
    this(request, body, Map.of());
  }

  /**
   * {@code startAsync()} keeps this request and {@code response} (the one the servlet is handed) in
   * the {@link AsyncContext}, then calls {@code hook} (may be {@code null}).
   */
  BufferedRequest asyncWith(ServletResponse response, Consumer<AsyncContext> hook) {
    this.asyncResponse = response;
    this.onAsyncStart = hook;
    return this;
  }

  /** {@code startAsync()} hands the servlet {@code wrapper}'s view of the async context. */
  BufferedRequest asyncWrapped(java.util.function.UnaryOperator<AsyncContext> wrapper) {
    this.asyncWrapper = wrapper;
    return this;
  }

  @Override
  public ServletInputStream getInputStream() throws IOException {
    if (readerTaken) {
      throw new IllegalStateException("getReader() was already called");
    }
    streamTaken = true;
    return new BodyStream(body);
  }

  @Override
  public BufferedReader getReader() throws IOException {
    if (streamTaken) {
      throw new IllegalStateException("getInputStream() was already called");
    }
    readerTaken = true;
    String enc = getCharacterEncoding();
    Charset cs = enc == null ? StandardCharsets.UTF_8 : Charset.forName(enc);
    return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body), cs));
  }

  @Override
  public int getContentLength() {
    return body.length;
  }

  @Override
  public long getContentLengthLong() {
    return body.length;
  }

  @Override
  public String getHeader(String name) {
    String set = extra.get(name);
    if (set != null) {
      return set;
    }
    if ("Content-Length".equalsIgnoreCase(name)) {
      return Integer.toString(body.length);
    }
    return super.getHeader(name);
  }

  @Override
  public Enumeration<String> getHeaders(String name) {
    String set = extra.get(name);
    if (set != null) {
      return Collections.enumeration(List.of(set));
    }
    if ("Content-Length".equalsIgnoreCase(name)) {
      return Collections.enumeration(List.of(Integer.toString(body.length)));
    }
    return super.getHeaders(name);
  }

  @Override
  public Enumeration<String> getHeaderNames() {
    if (extra.isEmpty()) {
      return super.getHeaderNames();
    }
    List<String> names = new ArrayList<>();
    TreeMap<String, String> missing = new TreeMap<>(extra);
    for (Enumeration<String> e = super.getHeaderNames(); e.hasMoreElements(); ) {
      String n = e.nextElement();
      missing.remove(n);
      names.add(n);
    }
    names.addAll(missing.keySet());
    return Collections.enumeration(names);
  }

  @Override
  public AsyncContext startAsync() {
    if (asyncResponse == null) {
      return super.startAsync();
    }
    AsyncContext ac = super.startAsync(this, asyncResponse);
    if (onAsyncStart != null) {
      onAsyncStart.accept(ac);
    }
    return asyncWrapper.apply(ac);
  }

  @Override
  public AsyncContext startAsync(ServletRequest request, ServletResponse response) {
    AsyncContext ac = super.startAsync(request, response);
    if (onAsyncStart != null) {
      onAsyncStart.accept(ac);
    }
    return asyncWrapper.apply(ac);
  }

  /** A re-readable body stream; always ready, so async readers work too. */
  private static final class BodyStream extends ServletInputStream {
    private final ByteArrayInputStream in;
    private ReadListener listener;

    BodyStream(byte[] body) {
      this.in = new ByteArrayInputStream(body);
    }

    @Override
    public int read() {
      return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) {
      return in.read(b, off, len);
    }

    @Override
    public boolean isFinished() {
      return in.available() == 0;
    }

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public void setReadListener(ReadListener readListener) {
      this.listener = readListener;
      try {
        if (in.available() > 0) {
          listener.onDataAvailable();
        }
        listener.onAllDataRead();
      } catch (IOException e) {
        listener.onError(e);
      }
    }
  }
}
