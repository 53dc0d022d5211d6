package dev.tally.filter;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.gate.TallyError;
import dev.tally.core.mcp.SseFrames;
import dev.tally.core.mcp.ToolResults;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Writes what the filter answers itself. The JSON-RPC bytes always come from {@link ToolResults};
 * this class only chooses the framing: results go out as one SSE event when the client accepts
 * {@code text/event-stream} (as the MCP Java SDK answers {@code tools/call}), else as JSON;
 * refusals are always JSON with the code's HTTP status.
 */
final class Answers {
  private Answers() {}

  /** A tool result (replay or explicit result) with HTTP 200. */
  static void result(
      HttpServletRequest req, HttpServletResponse res, FilterSettings.Framing framing, byte[] json)
      throws IOException {
    boolean sse =
        switch (framing) {
          case SSE -> true;
          case JSON -> false;
          case AUTO -> lists(req.getHeader("Accept"), "text/event-stream");
        };
    res.setStatus(HttpServletResponse.SC_OK);
    byte[] body;
    if (sse) {
      res.setContentType("text/event-stream;charset=UTF-8");
      res.setHeader("Cache-Control", "no-cache, no-transform");
      res.setHeader("X-Accel-Buffering", "no");
      body = SseFrames.message(json);
    } else {
      res.setContentType("application/json");
      body = json;
    }
    send(res, body);
  }

  /** A refusal: the code's HTTP status and a JSON-RPC error. */
  static void refuse(HttpServletResponse res, JsonNode id, TallyError error) throws IOException {
    res.setStatus(error.code().httpStatus());
    res.setContentType("application/json");
    send(res, ToolResults.error(id, error));
  }

  /**
   * Whether an {@code Accept} header names {@code mediaType} explicitly (wildcards do not count).
   */
  static boolean lists(String accept, String mediaType) {
    if (accept == null) {
      return false;
    }
    for (String part : accept.split(",")) {
      String mt = part.trim();
      int semi = mt.indexOf(';');
      if (semi >= 0) {
        mt = mt.substring(0, semi).trim();
      }
      if (mt.equalsIgnoreCase(mediaType)) {
        return true;
      }
    }
    return false;
  }

  private static void send(HttpServletResponse res, byte[] body) throws IOException {
    res.setContentLength(body.length);
    OutputStream out = res.getOutputStream();
    out.write(body);
    out.flush();
  }
}
