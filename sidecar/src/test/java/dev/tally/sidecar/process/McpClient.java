package dev.tally.sidecar.process;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The agent side over raw HTTP/1.1 sockets, one connection per call ({@code Connection: close}), so
 * a test can drop a connection at will and a killed sidecar shows as a missing answer, never as a
 * silently retried request. Also reads the admin API.
 */
final class McpClient implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  /** The agent's bearer token on every call. */
  static final String TOKEN = "process-test-agent-token";

  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private final ExecutorService readers =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "mcp-client-reader");
            t.setDaemon(true);
            return t;
          });
  private final HttpClient admin =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final String authorization;

  /**
   * The credentialed agent: its calls carry {@link #TOKEN} (an anonymous retry is never shown the
   * stored result).
   */
  McpClient() {
    this("Bearer " + TOKEN);
  }

  /** A client whose calls carry {@code Authorization: <authorization>} (null: no credential). */
  McpClient(String authorization) {
    this.authorization = authorization;
  }

  /** An HTTP answer: status and the JSON-RPC message (the last one, for an SSE body). */
  record Answer(int status, String body, JsonNode message) {
    JsonNode result() {
      return message.path("result");
    }

    /** {@code structuredContent.tally.code} of an explicit Tally result, or "". */
    String tallyCode() {
      return result().path("structuredContent").path("tally").path("code").asText("");
    }

    /** The replay marker, or a missing node. */
    JsonNode replay() {
      return result().path("_meta").path("dev.tally/replay");
    }

    String ticket() {
      return result().path("structuredContent").path("ticket").asText(null);
    }

    boolean isToolResult() {
      return message.has("result") && !result().path("isError").asBoolean(false);
    }
  }

  /** A {@code tools/call} on its own connection. */
  final class Exchange {
    private final Socket socket;
    final CompletableFuture<Answer> answer = new CompletableFuture<>();
    final long sentAtNanos;
    volatile long answeredAtNanos;

    private Exchange(Socket socket, long sentAtNanos) {
      this.socket = socket;
      this.sentAtNanos = sentAtNanos;
    }

    /** Resets the connection, as a dying network would. */
    void abort() {
      try {
        socket.setSoLinger(true, 0);
        socket.close();
      } catch (IOException e) {
        // already gone
      }
    }

    /** The answer, or null if the connection ended without a complete one. */
    Answer await(Duration max) throws Exception {
      try {
        return answer.get(max.toMillis(), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        return null;
      }
    }
  }

  static String call(long rpcId, String tool, String title) {
    ObjectNode o = F.objectNode();
    o.put("jsonrpc", "2.0");
    o.put("id", rpcId);
    o.put("method", "tools/call");
    ObjectNode p = o.putObject("params");
    p.put("name", tool);
    p.putObject("arguments").put("title", title);
    return o.toString();
  }

  /**
   * Sends a {@code tools/call}; {@code idempotencyKey} may be null (matching by fingerprint). The
   * answer is read on another thread.
   */
  Exchange send(URI mcp, long rpcId, String tool, String title, String idempotencyKey)
      throws IOException {
    byte[] body = call(rpcId, tool, title).getBytes(StandardCharsets.UTF_8);
    StringBuilder h = new StringBuilder(256);
    h.append("POST ").append(mcp.getRawPath()).append(" HTTP/1.1\r\n");
    h.append("Host: ").append(mcp.getHost()).append(':').append(mcp.getPort()).append("\r\n");
    h.append("Content-Type: application/json\r\n");
    h.append("Accept: application/json, text/event-stream\r\n");
    h.append("MCP-Protocol-Version: 2025-11-25\r\n");
    h.append("Connection: close\r\n");
    if (idempotencyKey != null) {
      h.append("Idempotency-Key: ").append(idempotencyKey).append("\r\n");
    }
    if (authorization != null) {
      h.append("Authorization: ").append(authorization).append("\r\n");
    }
    h.append("Content-Length: ").append(body.length).append("\r\n\r\n");
    Socket s = new Socket();
    s.setTcpNoDelay(true);
    s.setSoTimeout(60_000);
    s.connect(new InetSocketAddress(mcp.getHost(), mcp.getPort()), 10_000);
    OutputStream out = s.getOutputStream();
    out.write(h.toString().getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
    Exchange x = new Exchange(s, System.nanoTime());
    readers.execute(
        () -> {
          try (s) {
            byte[] raw = readAll(s.getInputStream());
            x.answeredAtNanos = System.nanoTime();
            x.answer.complete(parse(raw));
          } catch (IOException | RuntimeException e) {
            x.answer.completeExceptionally(e);
          }
        });
    return x;
  }

  /** Sends a call and waits for its answer; fails if there is none within {@code max}. */
  Answer call(URI mcp, long rpcId, String tool, String title, String key, Duration max)
      throws Exception {
    Exchange x = send(mcp, rpcId, tool, title, key);
    try {
      return x.answer.get(max.toMillis(), TimeUnit.MILLISECONDS);
    } finally {
      x.abort();
    }
  }

  /** {@code GET} on the admin port: status and JSON body. */
  Answer get(URI uri) throws IOException, InterruptedException {
    HttpResponse<String> r =
        admin.send(
            HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    boolean json = r.headers().firstValue("Content-Type").orElse("").contains("json");
    JsonNode n = !json || r.body().isBlank() ? F.objectNode() : JSON.readTree(r.body());
    return new Answer(r.statusCode(), r.body(), n);
  }

  /** The items of the admin API's {@code /v1/executions} answer at {@code uri} (its first page). */
  List<JsonNode> executions(URI uri) {
    try {
      Answer a = get(uri);
      if (a.status() != 200) {
        throw new IllegalStateException("GET " + uri + ": " + a.status() + " " + a.body());
      }
      List<JsonNode> items = new ArrayList<>();
      a.message().path("items").forEach(items::add);
      return items;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    int n;
    while ((n = in.read(buf)) != -1) {
      b.write(buf, 0, n);
    }
    return b.toByteArray();
  }

  /** Parses a whole HTTP/1.1 response; throws if it is incomplete. */
  static Answer parse(byte[] raw) throws IOException {
    String text = new String(raw, StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) {
      throw new IOException("no complete response head (" + raw.length + " bytes)");
    }
    String[] lines = text.substring(0, end).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    long length = -1;
    boolean chunked = false;
    for (int i = 1; i < lines.length; i++) {
      int c = lines[i].indexOf(':');
      String name = lines[i].substring(0, c).strip().toLowerCase(Locale.ROOT);
      String value = lines[i].substring(c + 1).strip();
      if (name.equals("content-length")) {
        length = Long.parseLong(value);
      } else if (name.equals("transfer-encoding") && value.equalsIgnoreCase("chunked")) {
        chunked = true;
      }
    }
    byte[] body;
    int start = end + 4;
    if (chunked) {
      body = dechunk(raw, start);
    } else if (length >= 0) {
      if (raw.length - start < length) {
        throw new IOException("body cut short");
      }
      body = java.util.Arrays.copyOfRange(raw, start, start + (int) length);
    } else {
      body = java.util.Arrays.copyOfRange(raw, start, raw.length);
    }
    String s = new String(body, StandardCharsets.UTF_8);
    return new Answer(status, s, message(s));
  }

  private static byte[] dechunk(byte[] raw, int pos) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    while (true) {
      int eol = indexOfCrlf(raw, pos);
      if (eol < 0) {
        throw new IOException("chunked body cut short");
      }
      String size = new String(raw, pos, eol - pos, StandardCharsets.US_ASCII);
      int semi = size.indexOf(';');
      int n = Integer.parseInt((semi >= 0 ? size.substring(0, semi) : size).strip(), 16);
      pos = eol + 2;
      if (n == 0) {
        return b.toByteArray();
      }
      if (pos + n + 2 > raw.length) {
        throw new IOException("chunked body cut short");
      }
      b.write(raw, pos, n);
      pos += n + 2;
    }
  }

  private static int indexOfCrlf(byte[] raw, int from) {
    for (int i = from; i + 1 < raw.length; i++) {
      if (raw[i] == '\r' && raw[i + 1] == '\n') {
        return i;
      }
    }
    return -1;
  }

  /** The JSON body, or the last {@code data:} event of an SSE body. */
  private static JsonNode message(String body) throws IOException {
    String s = body.strip();
    if (s.isEmpty()) {
      return F.objectNode();
    }
    if (s.startsWith("{")) {
      return JSON.readTree(s);
    }
    String last = null;
    for (String line : s.split("\r?\n")) {
      if (line.startsWith("data:") && !line.substring(5).isBlank()) {
        last = line.substring(5).strip();
      }
    }
    return last == null ? F.objectNode() : JSON.readTree(last);
  }

  @Override
  public void close() {
    readers.shutdownNow();
  }
}
