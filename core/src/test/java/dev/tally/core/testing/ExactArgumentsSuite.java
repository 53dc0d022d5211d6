package dev.tally.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every adapter must do with a call's arguments (ARCHITECTURE.md §6: "Arguments reach the
 * upstream byte for byte as the client sent them; only {@code _meta} is added"), and that numbers
 * count with all their digits when calls are matched (docs/canonical-form.md). A binding puts its
 * adapter, with the real gate, in front of a raw upstream that records every {@code tools/call}
 * body it receives and answers it with a text result; the write tool has the default contract
 * (side-effecting, matched by fingerprint when no key is sent).
 */
public abstract class ExactArgumentsSuite {
  /** Random calls per run; each is one round trip through the adapter. */
  private static final int CALLS = 300;

  /** The seed of the random calls; {@code -Dtally.exactArguments.seed=N} runs another set. */
  private static final long SEED = Long.getLong("tally.exactArguments.seed", 20261130L);

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final AtomicLong SEQ = new AtomicLong(1);

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  /** The MCP endpoint in front of the adapter. */
  protected abstract URI endpoint();

  /** The raw bodies of the {@code tools/call} requests the upstream received, in order. */
  protected abstract BlockingQueue<byte[]> upstreamCalls();

  /** The side-effecting tool to call. */
  protected abstract String writeTool();

  /** Headers every request carries (for example {@code MCP-Protocol-Version}). */
  protected Map<String, String> headers() {
    return Map.of("MCP-Protocol-Version", "2025-11-25");
  }

  @BeforeEach
  void forgetEarlierCalls() {
    upstreamCalls().clear();
  }

  @Test
  void randomArgumentsReachTheUpstreamByteForByte() throws Exception {
    sendRandomCalls(SEED, CALLS, "call", HttpRequest.BodyPublishers::ofByteArray);
  }

  /**
   * The same with each body sent chunked in three pieces of random length: the adapter assembles
   * the chunks (a body of one chunk is kept as it came, a longer one is copied) without losing or
   * reordering a byte.
   */
  @Test
  void randomArgumentsSentInChunksReachTheUpstreamByteForByte() throws Exception {
    java.util.Random cuts = new java.util.Random(SEED);
    sendRandomCalls(
        SEED + 1,
        CALLS / 4,
        "chunked call",
        sent -> {
          int a = 1 + cuts.nextInt(sent.length - 2);
          int b = a + 1 + cuts.nextInt(sent.length - a - 1);
          return HttpRequest.BodyPublishers.fromPublisher(
              HttpRequest.BodyPublishers.concat(
                  HttpRequest.BodyPublishers.ofByteArray(sent, 0, a),
                  HttpRequest.BodyPublishers.ofByteArray(sent, a, b - a),
                  HttpRequest.BodyPublishers.ofByteArray(sent, b, sent.length - b)));
        });
  }

  /**
   * Sends {@code count} random calls of the seed {@code seed}, each body as {@code publish} makes
   * it, and checks that every one reached the upstream byte for byte.
   */
  private void sendRandomCalls(
      long seed,
      int count,
      String what,
      java.util.function.Function<byte[], HttpRequest.BodyPublisher> publish)
      throws Exception {
    RandomToolCalls random = new RandomToolCalls(seed);
    for (int i = 0; i < count; i++) {
      byte[] sent =
          random.call(writeTool(), SEQ.getAndIncrement()).getBytes(StandardCharsets.UTF_8);
      HttpResponse<String> r = post(publish.apply(sent), Map.of());
      assertThat(r.statusCode())
          .as("seed %d, %s %d: %s -> %s", SEED, what, i, utf8(sent), r.body())
          .isEqualTo(200);
      byte[] received = upstreamCalls().poll(10, TimeUnit.SECONDS);
      assertThat(received)
          .as("seed %d, %s %d reached the upstream: %s", SEED, what, i, utf8(sent))
          .isNotNull();
      ForwardedBytes.assertForwardedExactly(sent, received);
    }
    assertThat(upstreamCalls()).isEmpty();
  }

  @Test
  void keylessTransfersThatDifferInTheLastDigitBothRun() throws Exception {
    String[][] pairs = {
      {"1234567890123456789", "1234567890123456790"},
      {"12345678901234567.89", "12345678901234567.88"},
      {"0.1000000000000000000001", "0.1000000000000000000002"}
    };
    for (String[] pair : pairs) {
      String to = "acct-" + SEQ.getAndIncrement();
      JsonNode first = call(transfer(to, pair[0]), Map.of());
      JsonNode second = call(transfer(to, pair[1]), Map.of());
      String firstRun = executionIdUpstream(pair[0]);
      String secondRun = executionIdUpstream(pair[1]);

      assertThat(secondRun).as("%s then %s", pair[0], pair[1]).isNotEqualTo(firstRun);
      assertThat(replayed(second)).as("%s then %s", pair[0], pair[1]).isFalse();
      assertThat(text(second)).isNotEqualTo(text(first));
    }
    assertThat(upstreamCalls()).isEmpty();
  }

  @Test
  void aKeyCoversOneAmountInAnySpellingAndNoOther() throws Exception {
    String to = "acct-" + SEQ.getAndIncrement();
    Map<String, String> key = Map.of("Idempotency-Key", "transfer-" + to);
    JsonNode first = call(transfer(to, "12345678901234567.89"), key);
    executionIdUpstream("12345678901234567.89");

    JsonNode sameValue = call(transfer(to, "1234567890123456789e-2"), key);
    JsonNode otherValue = call(transfer(to, "12345678901234567.88"), key);

    assertThat(replayed(sameValue)).as("the same amount spelled otherwise is a retry").isTrue();
    assertThat(text(sameValue)).isEqualTo(text(first));
    assertThat(otherValue.at("/result/structuredContent/tally/code").asText())
        .as("another amount under the same key: %s", otherValue)
        .isEqualTo("IDEMPOTENCY_KEY_REUSED");
    // A dispatched call would have reached the upstream before its answer reached the client.
    assertThat(upstreamCalls()).isEmpty();
  }

  private String transfer(String to, String amount) {
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + SEQ.getAndIncrement()
        + ",\"method\":\"tools/call\",\"params\":{\"name\":\""
        + writeTool()
        + "\",\"arguments\":{\"to\":\""
        + to
        + "\",\"amount\":"
        + amount
        + "}}}";
  }

  /** The execution id of the next call the upstream received, which must carry {@code amount}. */
  private String executionIdUpstream(String amount) throws Exception {
    byte[] received = upstreamCalls().poll(10, TimeUnit.SECONDS);
    assertThat(received).as("a call with amount %s reached the upstream", amount).isNotNull();
    assertThat(utf8(received)).contains("\"amount\":" + amount + "}");
    return JSON.readTree(received).at("/params/_meta/dev.tally~1executionId").asText();
  }

  private static boolean replayed(JsonNode response) {
    return response.at("/result/_meta/dev.tally~1replay/executionId").isTextual();
  }

  private static String text(JsonNode response) {
    return response.at("/result/content/0/text").asText();
  }

  private JsonNode call(String body, Map<String, String> extra) throws Exception {
    HttpResponse<String> r = post(body.getBytes(StandardCharsets.UTF_8), extra);
    assertThat(r.statusCode()).as("%s -> %s", body, r.body()).isEqualTo(200);
    return message(r);
  }

  private HttpResponse<String> post(byte[] body, Map<String, String> extra) throws Exception {
    return post(HttpRequest.BodyPublishers.ofByteArray(body), extra);
  }

  private HttpResponse<String> post(HttpRequest.BodyPublisher body, Map<String, String> extra)
      throws Exception {
    Map<String, String> h = new LinkedHashMap<>(headers());
    h.putAll(extra);
    if (h.keySet().stream().noneMatch("Authorization"::equalsIgnoreCase)) {
      // A credentialed agent: an anonymous retry is never shown the stored result.
      h.put("Authorization", "Bearer exact-arguments-agent");
    }
    HttpRequest.Builder b =
        HttpRequest.newBuilder(endpoint())
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(body);
    h.forEach(b::header);
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  /** The JSON-RPC message of a JSON or SSE answer. */
  private static JsonNode message(HttpResponse<String> r) throws Exception {
    String type = r.headers().firstValue("Content-Type").orElse("");
    if (!type.startsWith("text/event-stream")) {
      return JSON.readTree(r.body());
    }
    JsonNode last = null;
    for (String line : r.body().split("\r\n|\r|\n")) {
      if (line.startsWith("data:") && line.length() > 5) {
        JsonNode m = JSON.readTree(line.substring(5).trim());
        if (m.has("result") || m.has("error")) {
          last = m;
        }
      }
    }
    assertThat(last).as("a JSON-RPC answer in %s", r.body()).isNotNull();
    return last;
  }

  private static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
