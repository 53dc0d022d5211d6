package dev.tally.filter;

import dev.tally.core.mcp.SseEvent;
import dev.tally.core.mcp.SseWriter;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The application's live standalone ({@code GET}) event streams, so that Tally can tell their
 * clients something itself (issue 18: {@code notifications/tools/list_changed} when the write
 * switch changes what they may see), as the sidecar does on the streams it relays. The
 * application's own MCP server owns each stream; Tally only hands it an {@link EventWriter} in
 * place of the response's writer and adds whole events between the application's. A stream the
 * application writes through {@code getOutputStream()} instead, or answers with anything but {@code
 * text/event-stream}, is left alone and gets nothing. Thread-safe.
 */
final class StandaloneStreams {
  private final Set<EventWriter> live = ConcurrentHashMap.newKeySet();

  /**
   * Passes a {@code GET} on to the application with a response whose writer can take Tally's events
   * while the stream lasts (until its async context completes, fails or times out).
   */
  void serve(HttpServletRequest req, HttpServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    Tapped tapped = new Tapped(res);
    try {
      chain.doFilter(req, tapped);
    } finally {
      EventWriter w = tapped.writer;
      if (w != null) {
        if (req.isAsyncStarted()) {
          req.getAsyncContext().addListener(new Forget(w));
        } else {
          live.remove(w);
        }
      }
    }
  }

  /** Appends {@code json} (one JSON-RPC notification) to every live stream; how many took it. */
  int notifyAll(byte[] json) {
    String event = new String(SseWriter.encode(SseEvent.message(json)), StandardCharsets.UTF_8);
    int n = 0;
    for (EventWriter w : live) {
      if (w.inject(event)) {
        n++;
      } else {
        live.remove(w);
      }
    }
    return n;
  }

  /** Streams open now (tests, metrics). */
  int size() {
    live.removeIf(EventWriter::gone);
    return live.size();
  }

  private final class Tapped extends HttpServletResponseWrapper {
    private EventWriter writer;

    Tapped(HttpServletResponse res) {
      super(res);
    }

    @Override
    public PrintWriter getWriter() throws IOException {
      PrintWriter real = super.getWriter();
      if (writer == null) {
        // The MCP Java SDK takes the writer before it sets text/event-stream: the type is checked
        // each time an event is added (isEventStream), not here.
        writer = new EventWriter(real, this::isEventStream);
        live.add(writer);
      }
      return writer;
    }

    private boolean isEventStream() {
      String type = getContentType();
      return getStatus() == 200
          && type != null
          && type.toLowerCase(Locale.ROOT).startsWith("text/event-stream");
    }
  }

  private final class Forget implements AsyncListener {
    private final EventWriter writer;

    Forget(EventWriter writer) {
      this.writer = writer;
    }

    @Override
    public void onComplete(AsyncEvent e) {
      live.remove(writer);
    }

    @Override
    public void onTimeout(AsyncEvent e) {
      live.remove(writer);
    }

    @Override
    public void onError(AsyncEvent e) {
      live.remove(writer);
    }

    @Override
    public void onStartAsync(AsyncEvent e) {
      e.getAsyncContext().addListener(this);
    }
  }
}
