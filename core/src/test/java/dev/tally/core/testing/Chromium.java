package dev.tally.core.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real headless Chromium (Debian's {@code chromium-headless-shell} or {@code chromium}) driven
 * through the Chrome DevTools Protocol over the JDK's own WebSocket client: navigate, evaluate,
 * wait for a condition. The browser is a process this test starts (loopback debugging port chosen
 * by the browser, a throw-away profile) and kills by its pid on close. Shared through core's
 * test-jar by both adapters' console tests.
 */
public final class Chromium implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern LISTENING = Pattern.compile("DevTools listening on (ws://\\S+)");
  private static final List<String> CANDIDATES =
      List.of("/usr/bin/chromium-headless-shell", "/usr/bin/chromium", "/usr/bin/chromium-browser");

  private final Process process;
  private final Path profile;
  private final WebSocket page;
  private final AtomicLong ids = new AtomicLong();
  private final Map<Long, CompletableFuture<JsonNode>> waiting = new ConcurrentHashMap<>();

  private Chromium(Process process, Path profile, WebSocket page) {
    this.process = process;
    this.profile = profile;
    this.page = page;
  }

  /** The browser binary: {@code TALLY_CHROMIUM}, else the first Debian one installed. */
  public static Optional<Path> binary() {
    String env = System.getenv("TALLY_CHROMIUM");
    if (env != null && !env.isBlank()) {
      return Optional.of(Path.of(env));
    }
    return CANDIDATES.stream().map(Path::of).filter(Files::isExecutable).findFirst();
  }

  /** Starts the browser with one blank page attached. */
  public static Chromium start(Path binary) throws Exception {
    Path profile = Files.createTempDirectory("tally-chromium-");
    Process p =
        new ProcessBuilder(
                binary.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "--user-data-dir=" + profile,
                "about:blank")
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      URI browser = listening(p, Duration.ofSeconds(60));
      HttpClient http = HttpClient.newHttpClient();
      URI list = URI.create("http://" + browser.getAuthority() + "/json/list");
      String pageWs = null;
      for (int i = 0; i < 200 && pageWs == null; i++) {
        JsonNode targets =
            JSON.readTree(
                http.send(
                        HttpRequest.newBuilder(list).GET().build(),
                        HttpResponse.BodyHandlers.ofString())
                    .body());
        for (JsonNode t : targets) {
          if ("page".equals(t.path("type").asText())) {
            pageWs = t.path("webSocketDebuggerUrl").asText();
          }
        }
        if (pageWs == null) {
          Thread.sleep(50); // polling a condition: the first page target appears shortly
        }
      }
      if (pageWs == null) {
        throw new IllegalStateException("chromium opened no page");
      }
      Chromium[] self = new Chromium[1];
      WebSocket ws =
          http.newWebSocketBuilder()
              .buildAsync(URI.create(pageWs), new Listener(self))
              .get(30, TimeUnit.SECONDS);
      self[0] = new Chromium(p, profile, ws);
      self[0].send("Page.enable", JSON.createObjectNode());
      self[0].send("Runtime.enable", JSON.createObjectNode());
      return self[0];
    } catch (Exception | Error e) {
      p.destroyForcibly();
      throw e;
    }
  }

  private static URI listening(Process p, Duration max) throws Exception {
    CompletableFuture<URI> found = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  Matcher m = LISTENING.matcher(line);
                  if (m.find()) {
                    found.complete(URI.create(m.group(1)));
                  }
                }
                found.completeExceptionally(new IllegalStateException("chromium exited"));
              } catch (IOException e) {
                found.completeExceptionally(e);
              }
            },
            "chromium-stderr");
    t.setDaemon(true);
    t.start();
    return found.get(max.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Sends one command and waits (bounded) for its result. */
  public JsonNode send(String method, ObjectNode params) throws Exception {
    long id = ids.incrementAndGet();
    ObjectNode msg = JSON.createObjectNode();
    msg.put("id", id);
    msg.put("method", method);
    msg.set("params", params);
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    waiting.put(id, answer);
    page.sendText(msg.toString(), true).get(30, TimeUnit.SECONDS);
    JsonNode r = answer.get(30, TimeUnit.SECONDS);
    if (r.has("error")) {
      throw new IllegalStateException(method + ": " + r.get("error"));
    }
    return r.path("result");
  }

  /** Opens {@code url} and waits until its document finished loading. */
  public void navigate(URI url) throws Exception {
    ObjectNode p = JSON.createObjectNode();
    p.put("url", url.toString());
    send("Page.navigate", p);
    waitFor("document.readyState === 'complete' && location.href === " + quote(url.toString()));
  }

  /** Evaluates {@code expression} in the page (awaiting a promise); its JSON value. */
  public JsonNode eval(String expression) throws Exception {
    ObjectNode p = JSON.createObjectNode();
    p.put("expression", expression);
    p.put("awaitPromise", true);
    p.put("returnByValue", true);
    JsonNode r = send("Runtime.evaluate", p);
    if (r.has("exceptionDetails")) {
      throw new IllegalStateException("page script failed: " + r.get("exceptionDetails"));
    }
    return r.path("result").path("value");
  }

  /** Waits (up to 20 s, re-checking every 50 ms) until {@code condition} is true in the page. */
  public void waitFor(String condition) throws Exception {
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < end) {
      if (eval("!!(" + condition + ")").asBoolean(false)) {
        return;
      }
      Thread.sleep(50); // polling a condition in the page, bounded above
    }
    throw new AssertionError(
        "not true within 20 s: " + condition + "\npage text: " + eval("document.body.innerText"));
  }

  /** A JavaScript string literal of {@code s}. */
  public static String quote(String s) {
    try {
      return JSON.writeValueAsString(s);
    } catch (IOException e) {
      throw new IllegalArgumentException(e);
    }
  }

  @Override
  public void close() {
    try {
      page.sendClose(WebSocket.NORMAL_CLOSURE, "").get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      // the browser goes anyway
    }
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
      try (var s = Files.walk(profile)) {
        s.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    } catch (Exception e) {
      // a leftover temporary profile is harmless
    }
  }

  private static final class Listener implements WebSocket.Listener {
    private final Chromium[] self;
    private final StringBuilder text = new StringBuilder();

    Listener(Chromium[] self) {
      this.self = self;
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      text.append(data);
      if (last) {
        String msg = text.toString();
        text.setLength(0);
        try {
          JsonNode n = JSON.readTree(msg);
          if (n.has("id") && self[0] != null) {
            CompletableFuture<JsonNode> f = self[0].waiting.remove(n.get("id").asLong());
            if (f != null) {
              f.complete(n);
            }
          }
        } catch (IOException e) {
          // an event we cannot read is not an answer we wait for
        }
      }
      ws.request(1);
      return null;
    }
  }
}
