package dev.tally.filter;

import dev.tally.core.call.CallReply;
import dev.tally.core.mcp.MediaTypes;
import dev.tally.core.mcp.SseWriter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Writes what core decided the filter answers itself. The JSON-RPC bytes always come from core;
 * this class only chooses the framing: results go out as one SSE event when the client lists {@code
 * text/event-stream} (as the MCP Java SDK answers {@code tools/call}), else as JSON; refusals are
 * always JSON with the code's HTTP status.
 */
final class Answers {
  private Answers() {}

  /** A tool result (replay or explicit result) with HTTP 200; returns whether it was written. */
  static boolean result(
      HttpServletRequest req, HttpServletResponse res, FilterSettings.Framing framing, byte[] json)
      throws IOException {
    boolean sse =
        switch (framing) {
          case SSE -> true;
          case JSON -> false;
          case AUTO -> MediaTypes.lists(req.getHeader("Accept"), MediaTypes.SSE);
        };
    res.setStatus(HttpServletResponse.SC_OK);
    byte[] body;
    if (sse) {
      res.setContentType("text/event-stream;charset=UTF-8");
      res.setHeader("Cache-Control", "no-cache, no-transform");
      res.setHeader("X-Accel-Buffering", "no");
      body = SseWriter.message(json);
    } else {
      res.setContentType(MediaTypes.JSON);
      body = json;
    }
    try {
      send(res, body);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** A refusal: its HTTP status and JSON-RPC error. */
  static void refuse(HttpServletResponse res, CallReply.Refusal r) throws IOException {
    res.setStatus(r.httpStatus());
    res.setContentType(MediaTypes.JSON);
    send(res, r.message());
  }

  private static void send(HttpServletResponse res, byte[] body) throws IOException {
    res.setContentLength(body.length);
    OutputStream out = res.getOutputStream();
    out.write(body);
    out.flush();
  }
}
