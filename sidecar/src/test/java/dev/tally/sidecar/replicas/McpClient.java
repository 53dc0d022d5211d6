package dev.tally.sidecar.replicas;

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
import java.util.concurrent.CompletableFuture;

/**
 * A raw-HTTP MCP client of one replica (JDK {@link HttpClient}), plus a raw-socket call that can be
 * cut after the request was sent. Answers are parsed whether they come as JSON or as SSE.
 */
final class McpClient {
  static final String VERSION = "2025-11-25";
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final URI uri;
  private String session;
  private final String authorization;

  private McpClient(String url, String authorization) {
    this.uri = URI.create(url);
    this.authorization = authorization;
  }

  /**
   * A client with an initialized session that has listed the tools, whose requests carry the
   * agent's bearer token (an anonymous retry is never shown the stored result).
   */
  static McpClient open(String url) throws Exception {
    return open(url, "Bearer replica-test-agent-token");
  }

  /**
   * {@link #open(String)} for a client that sends {@code authorization} (an {@code Authorization}
   * header value) with every request, or none when null.
   */
  static McpClient open(String url, String authorization) throws Exception {
    McpClient c = new McpClient(url, authorization);
    HttpResponse<String> r =
        c.post(
            "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\""
                + VERSION
                + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"replicas\",\"version\":\"1\"}}}");
    if (r.statusCode() != 200) {
      throw new IllegalStateException("initialize: HTTP " + r.statusCode());
    }
    c.session = r.headers().firstValue("Mcp-Session-Id").orElseThrow();
    HttpResponse<String> n =
        c.post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    if (n.statusCode() != 202) {
      throw new IllegalStateException("initialized: HTTP " + n.statusCode());
    }
    HttpResponse<String> list = c.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    if (list.statusCode() != 200) {
      throw new IllegalStateException("tools/list: HTTP " + list.statusCode());
    }
    return c;
  }

  static String call(int id, String tool, String argsJson) {
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + id
        + ",\"method\":\"tools/call\",\"params\":{\"name\":\""
        + tool
        + "\",\"arguments\":"
        + argsJson
        + "}}";
  }

  private HttpRequest request(String body) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", VERSION)
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return b.build();
  }

  HttpResponse<String> post(String body) throws Exception {
    return http.send(request(body), HttpResponse.BodyHandlers.ofString());
  }

  CompletableFuture<HttpResponse<String>> postAsync(String body) {
    return http.sendAsync(request(body), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Sends {@code body} on a socket of its own and returns the socket without reading anything;
   * closing it (with linger 0: a reset) drops the connection while the call runs.
   */
  Socket send(String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    String head =
        "POST "
            + uri.getPath()
            + " HTTP/1.1\r\nHost: "
            + uri.getHost()
            + ":"
            + uri.getPort()
            + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream"
            + "\r\nMCP-Protocol-Version: "
            + VERSION
            + "\r\nMcp-Session-Id: "
            + session
            + (authorization == null ? "" : "\r\nAuthorization: " + authorization)
            + "\r\nContent-Length: "
            + bytes.length
            + "\r\n\r\n";
    Socket s = new Socket(uri.getHost(), uri.getPort());
    s.setSoLinger(true, 0);
    OutputStream out = s.getOutputStream();
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(bytes);
    out.flush();
    return s;
  }

  /** The JSON-RPC message of a response body, JSON or the last {@code data:} event of SSE. */
  static JsonNode message(String body) throws IOException {
    String trimmed = body.trim();
    if (trimmed.startsWith("{")) {
      return MAPPER.readTree(trimmed);
    }
    String last = null;
    for (String line : body.split("\n", -1)) {
      if (line.startsWith("data:")) {
        String d = line.substring(5).trim();
        if (!d.isEmpty()) {
          last = d;
        }
      }
    }
    if (last == null) {
      throw new IllegalStateException("no JSON-RPC message in a " + body.length() + "-byte body");
    }
    return MAPPER.readTree(last);
  }
}
