package dev.tally.sidecar.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** The scripted agent of {@code tally demo}: plain HTTP, so every step is visible. */
final class DemoClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI mcp;
  private final URI admin;
  private String session;

  /**
   * The demo agent's own credential: its actor (Tally shows stored results only to the caller that
   * proved the same identity; an anonymous retry would get RESULT_WITHHELD), and what confirms its
   * calls (never printed).
   */
  private final String authorization =
      "Bearer demo-agent-" + java.util.UUID.randomUUID().toString();

  DemoClient(URI mcp, URI admin) {
    this.mcp = mcp;
    this.admin = admin;
  }

  /** Runs initialize + notifications/initialized and keeps the session id. */
  void initialize() throws IOException, InterruptedException {
    HttpResponse<String> r =
        post(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"tally-demo-agent\",\"version\":\"1.0\"}}}");
    session = r.headers().firstValue("Mcp-Session-Id").orElse(null);
    post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
  }

  /** A {@code tools/call}; returns the JSON-RPC response. */
  JsonNode call(int id, String tool, String arguments) throws IOException, InterruptedException {
    HttpResponse<String> r = post(body(id, tool, arguments));
    return parse(r.body());
  }

  /**
   * Sends a {@code tools/call} and drops the connection as soon as the request is written: the
   * agent never sees the answer.
   */
  void callAndCut(int id, String tool, String arguments) throws IOException {
    byte[] b = body(id, tool, arguments).getBytes(StandardCharsets.UTF_8);
    try (Socket s = new Socket(mcp.getHost(), mcp.getPort())) {
      StringBuilder h = new StringBuilder();
      h.append("POST ").append(mcp.getRawPath()).append(" HTTP/1.1\r\n");
      h.append("Host: ").append(mcp.getHost()).append(':').append(mcp.getPort()).append("\r\n");
      h.append("Content-Type: application/json\r\n");
      h.append("Accept: application/json, text/event-stream\r\n");
      h.append("MCP-Protocol-Version: 2025-11-25\r\n");
      if (session != null) {
        h.append("Mcp-Session-Id: ").append(session).append("\r\n");
      }
      h.append("Authorization: ").append(authorization).append("\r\n");
      h.append("Content-Length: ").append(b.length).append("\r\n\r\n");
      OutputStream out = s.getOutputStream();
      out.write(h.toString().getBytes(StandardCharsets.US_ASCII));
      out.write(b);
      out.flush();
      s.setSoLinger(true, 0); // reset, like a dying network
    }
  }

  /** The activity record of an execution from the admin API. */
  JsonNode execution(String id) throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(admin.resolve("/v1/executions/" + id)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    return parse(r.body());
  }

  /**
   * Confirms the pending call {@code id} as its person would in the console: {@code POST
   * /v1/actions/{id}/confirm} with the agent's own credential. Returns the answer (the call ran).
   */
  JsonNode confirm(String id) throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(admin.resolve("/v1/actions/" + id + "/confirm"))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", authorization)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return parse(r.body());
  }

  private HttpResponse<String> post(String body) throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(mcp)
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-11-25")
            .header("Authorization", authorization)
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String body(int id, String tool, String arguments) {
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + id
        + ",\"method\":\"tools/call\",\"params\":{\"name\":\""
        + tool
        + "\",\"arguments\":"
        + arguments
        + "}}";
  }

  /** Parses a JSON body, or the last {@code data:} line of an SSE body. */
  static JsonNode parse(String body) throws IOException {
    String s = body.strip();
    if (s.startsWith("{")) {
      return JSON.readTree(s);
    }
    String last = null;
    for (String line : s.split("\r?\n")) {
      if (line.startsWith("data:") && line.length() > 5 && !line.substring(5).isBlank()) {
        last = line.substring(5).strip();
      }
    }
    return last == null ? JSON.createObjectNode() : JSON.readTree(last);
  }
}
