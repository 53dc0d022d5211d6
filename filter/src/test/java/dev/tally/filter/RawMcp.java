package dev.tally.filter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Raw JSON-RPC over HTTP with the JDK client, for requests the SDK client cannot make. */
final class RawMcp {
  /** The bearer token of every request (a header of the caller's own replaces it). */
  static final String AGENT = "Bearer filter-test-agent";

  static final ObjectMapper JSON = new ObjectMapper();
  private static final AtomicLong IDS = new AtomicLong(1000);

  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  final URI endpoint;
  final Map<String, String> session = new LinkedHashMap<>();

  RawMcp(URI endpoint) {
    this.endpoint = endpoint;
  }

  /** Opens a 2025-06-18 session. */
  RawMcp initialize() throws IOException, InterruptedException {
    ObjectNode init = request("initialize");
    ObjectNode p = init.putObject("params");
    p.put("protocolVersion", "2025-06-18");
    p.putObject("capabilities");
    p.putObject("clientInfo").put("name", "raw").put("version", "1");
    HttpResponse<String> r = post(init.toString(), Map.of());
    session.put("Mcp-Session-Id", r.headers().firstValue("Mcp-Session-Id").orElseThrow());
    session.put("MCP-Protocol-Version", "2025-06-18");
    post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", session);
    return this;
  }

  static ObjectNode request(String method) {
    ObjectNode o = JSON.createObjectNode();
    o.put("jsonrpc", "2.0");
    o.put("id", IDS.getAndIncrement());
    o.put("method", method);
    return o;
  }

  static ObjectNode toolCall(String tool, String message) {
    ObjectNode o = request("tools/call");
    ObjectNode p = o.putObject("params");
    p.put("name", tool);
    p.putObject("arguments").put("message", message);
    return o;
  }

  HttpResponse<String> post(String body, Map<String, String> headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(endpoint)
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            // A credentialed agent: an anonymous retry is never shown the stored result.
            .header("Authorization", AGENT)
            .POST(HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(b::setHeader);
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  JsonNode call(JsonNode request) throws IOException, InterruptedException {
    return responseOf(post(request.toString(), session));
  }

  static JsonNode responseOf(HttpResponse<String> r) throws IOException {
    String type = r.headers().firstValue("Content-Type").orElse("");
    if (!type.startsWith("text/event-stream")) {
      return JSON.readTree(r.body());
    }
    for (String line : r.body().split("\r\n|\r|\n")) {
      if (line.startsWith("data:")) {
        JsonNode msg = JSON.readTree(line.substring(5).trim());
        if (msg.has("id") && !msg.has("method")) {
          return msg;
        }
      }
    }
    throw new AssertionError("no JSON-RPC response in the event stream");
  }
}
