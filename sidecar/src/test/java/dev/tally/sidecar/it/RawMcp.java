package dev.tally.sidecar.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A raw-HTTP MCP client (JDK {@link HttpClient}): it can cut a stream and resume it, which the SDK
 * client cannot. Reads SSE line by line on its own, independent of the sidecar's parser.
 */
final class RawMcp {
  static final String VERSION = "2025-11-25";
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  final String url;
  final String version;
  String session;

  /** The {@code Authorization} header every request carries, or {@code null}. */
  String authorization;

  RawMcp(String url) {
    this(url, VERSION);
  }

  /** A client speaking protocol {@code version} (e.g. 2025-03-26, the only one with batches). */
  RawMcp(String url, String version) {
    this.url = url;
    this.version = version;
  }

  /** One SSE event as read off the wire. */
  record Event(String id, String data) {}

  /** This client with credential {@code authorization} on every request. */
  RawMcp as(String authorization) {
    this.authorization = authorization;
    return this;
  }

  /** A client of another caller that knows this client's session id. */
  RawMcp impostor(String authorization) {
    RawMcp other = new RawMcp(url, version).as(authorization);
    other.session = session;
    return other;
  }

  /** A GET for the session's standalone stream. */
  HttpResponse<InputStream> standalone() throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(20))
            .header("Accept", "text/event-stream")
            .header("MCP-Protocol-Version", version)
            .GET();
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
  }

  RawMcp initialize() throws Exception {
    HttpResponse<String> r =
        post(
            "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\""
                + version
                + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
    if (r.statusCode() != 200) {
      throw new IllegalStateException("initialize: " + r.statusCode() + " " + r.body());
    }
    session = r.headers().firstValue("Mcp-Session-Id").orElseThrow();
    HttpResponse<String> n = post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    if (n.statusCode() != 202) {
      throw new IllegalStateException("initialized: " + n.statusCode());
    }
    return this;
  }

  HttpRequest.Builder request(String body) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", version)
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return b;
  }

  HttpResponse<String> post(String body) throws Exception {
    return http.send(request(body).build(), HttpResponse.BodyHandlers.ofString());
  }

  CompletableFuture<HttpResponse<String>> postAsync(String body) {
    return http.sendAsync(request(body).build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<InputStream> postStream(String body) throws Exception {
    return http.send(request(body).build(), HttpResponse.BodyHandlers.ofInputStream());
  }

  HttpResponse<InputStream> resume(String lastEventId) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(20))
            .header("Accept", "text/event-stream")
            .header("MCP-Protocol-Version", version)
            .header("Last-Event-ID", lastEventId)
            .GET();
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
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

  /** Reads events until {@code n} were read or the stream ended. */
  static List<Event> read(BufferedReader in, int n) throws IOException {
    List<Event> out = new ArrayList<>();
    String id = null;
    StringBuilder data = null;
    String line;
    while (out.size() < n && (line = in.readLine()) != null) {
      if (line.isEmpty()) {
        if (data != null) {
          out.add(new Event(id, data.toString()));
        }
        id = null;
        data = null;
      } else if (line.startsWith("id:")) {
        id = line.substring(3).trim();
      } else if (line.startsWith("data:")) {
        String d = line.substring(5);
        d = d.startsWith(" ") ? d.substring(1) : d;
        data = data == null ? new StringBuilder(d) : data.append('\n').append(d);
      }
    }
    return out;
  }

  static BufferedReader reader(HttpResponse<InputStream> r) {
    return new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8));
  }

  /** All events of a complete SSE body. */
  static List<Event> events(String body) throws IOException {
    return read(new BufferedReader(new java.io.StringReader(body)), Integer.MAX_VALUE);
  }
}
