package dev.tally.sidecar.admin;

import static dev.tally.core.testing.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.gate.Operator;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.StatePaths;
import dev.tally.sidecar.app.HostPort;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The admin router in this JVM on a memory store, over real HTTP: routes, the browser defences
 * (Origin, media type, token), the strict resolve body. Every refused request is checked to have
 * changed nothing. The same rules against a real {@code tally serve} process: {@code
 * process.HostileAdminIT}.
 */
class AdminServerIT {
  private static final String TOKEN = "admin-it-token-0123456789abcdef-0123456789";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final Vertx vertx = Vertx.vertx();
  private final Clock clock = Clock.systemUTC();
  private final ExecutionStore store = MemoryExecutionStore.create();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private AdminServer admin;

  @AfterEach
  void stop() throws Exception {
    if (admin != null) {
      admin.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    store.close();
  }

  private void start(String token) throws Exception {
    admin =
        AdminServer.start(
                vertx,
                new AdminOptions(new HostPort("127.0.0.1", 0), token),
                store,
                Operator.create(store, clock),
                Duration.ofHours(1),
                new AdminServer.Probe() {
                  @Override
                  public String notReadyReason() {
                    return null;
                  }

                  @Override
                  public String metrics() {
                    return "tally_up 1\n";
                  }
                })
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
  }

  /** An execution walked to {@code state} through legal transitions. */
  private Execution execution(ExecutionState state) {
    Execution e =
        await(store.claim(Executions.candidate(clock).build(), clock.instant())).execution();
    for (ExecutionState s : StatePaths.pathTo(state)) {
      Transition t = Transition.to(e, s, Instant.now());
      if (s == ExecutionState.DISPATCHED) {
        t = t.withLease(new Lease("owner", Instant.now().plusSeconds(60)));
      }
      e = await(store.transition(t));
    }
    return e;
  }

  private String stateOf(Execution e) {
    return await(store.find(e.id())).orElseThrow().state().wireName();
  }

  record Reply(int status, String body, Map<String, List<String>> headers) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (Exception e) {
        throw new AssertionError("not JSON: " + body, e);
      }
    }

    String code() {
      return json().path("error").path("code").asText("");
    }

    String message() {
      return json().path("error").path("message").asText("");
    }
  }

  private Reply send(String method, String path, String body, String... headers) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.port() + path))
            .timeout(WAIT)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), r.body(), r.headers().map());
  }

  private Reply post(String path, String contentType, String body, String... more)
      throws Exception {
    String[] h = new String[more.length + 4];
    h[0] = "Authorization";
    h[1] = "Bearer " + TOKEN;
    h[2] = "Content-Type";
    h[3] = contentType;
    System.arraycopy(more, 0, h, 4, more.length);
    return send("POST", path, body, h);
  }

  private static void expect(Reply r, int status, String code) {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    assertThat(r.code()).as(r.body()).isEqualTo(code);
    assertThat(r.message()).as(r.body()).isNotBlank();
  }

  @Test
  void probesListingAndUnknownPathsKeepTheirDocumentedAnswers() throws Exception {
    start(TOKEN);
    Reply health = send("GET", "/healthz", null);
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.json().path("status").asText()).isEqualTo("alive");
    assertThat(send("GET", "/readyz", null).json().path("status").asText()).isEqualTo("ready");
    assertThat(send("GET", "/metrics", null).body()).isEqualTo("tally_up 1\n");
    expect(send("POST", "/healthz", ""), 405, "METHOD_NOT_ALLOWED");
    expect(send("GET", "/v2/anything", null), 404, "NOT_FOUND");
    Execution e = execution(ExecutionState.DELIVERED);
    for (String list : List.of("/v1/executions", "/v1/executions/")) {
      Reply r = send("GET", list, null, "Authorization", "Bearer " + TOKEN);
      assertThat(r.status()).as(list + " " + r.body()).isEqualTo(200);
      assertThat(r.json().path("items").get(0).path("executionId").asText())
          .isEqualTo(e.id().value());
    }
    expect(
        send("GET", "/v1/executions/" + e.id() + "/a/b", null, "Authorization", "Bearer " + TOKEN),
        405,
        "METHOD_NOT_ALLOWED");
    expect(send("GET", "/v1/executions", null), 401, "UNAUTHORIZED");
    assertThat(send("GET", "/v1/executions", null).headers().get("www-authenticate"))
        .containsExactly("Bearer");
  }

  /**
   * A page on any localhost port could confirm a pending action with a text/plain POST: no media
   * type a page may send without a preflight is accepted, and no origin but the port's own.
   */
  @Test
  void stateChangesRefuseSimpleRequestTypesAndEveryOtherOrigin() throws Exception {
    start(TOKEN);
    Execution pending = execution(ExecutionState.PENDING_CONFIRMATION);
    String confirm = "/v1/executions/" + pending.id() + "/confirm";
    for (String type :
        List.of(
            "text/plain",
            "text/plain;charset=UTF-8",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/json; charset=utf-16",
            "application/jsonx")) {
      Reply r = post(confirm, type, "{}");
      expect(r, 415, "UNSUPPORTED_MEDIA_TYPE");
      assertThat(r.headers().get("accept")).containsExactly("application/json");
    }
    expect(
        send("POST", confirm, "{}", "Authorization", "Bearer " + TOKEN),
        415,
        "UNSUPPORTED_MEDIA_TYPE");
    for (String origin :
        List.of("http://localhost:3000", "http://127.0.0.1:1", "https://evil.example", "null")) {
      expect(post(confirm, "application/json", "{}", "Origin", origin), 403, "FORBIDDEN_ORIGIN");
    }
    expect(
        post(confirm, "application/json", "{}", "Sec-Fetch-Site", "same-site"),
        403,
        "FORBIDDEN_ORIGIN");
    Reply preflight =
        send(
            "OPTIONS",
            confirm,
            null,
            "Origin",
            "http://localhost:3000",
            "Access-Control-Request-Method",
            "POST");
    expect(preflight, 403, "FORBIDDEN_ORIGIN");
    assertThat(preflight.headers().keySet()).noneMatch(h -> h.startsWith("access-control-"));
    assertThat(stateOf(pending)).as("nothing above confirmed it").isEqualTo("pending_confirmation");

    // Reads from a local page keep working; the port's own origin may act.
    assertThat(
            send(
                    "GET",
                    "/v1/executions",
                    null,
                    "Authorization",
                    "Bearer " + TOKEN,
                    "Origin",
                    "http://localhost:3000")
                .status())
        .isEqualTo(200);
    Reply own =
        post(
            confirm,
            "application/json; charset=utf-8",
            "",
            "Origin",
            "http://127.0.0.1:" + admin.port(),
            "Sec-Fetch-Site",
            "same-origin");
    // Past the guard, the handler answers: a confirmation is its actor's, never the operator's.
    expect(own, 403, "DECIDED_BY_ITS_ACTOR");
  }

  @Test
  void withoutAConfiguredTokenReadsAreOpenAndNothingCanBeChanged() throws Exception {
    start(null);
    Execution pending = execution(ExecutionState.PENDING_CONFIRMATION);
    assertThat(send("GET", "/v1/executions/" + pending.id(), null).status()).isEqualTo(200);
    for (String action : List.of("confirm", "cancel")) {
      Reply r =
          send(
              "POST",
              "/v1/executions/" + pending.id() + "/" + action,
              "{}",
              "Content-Type",
              "application/json");
      expect(r, 403, "TOKEN_NOT_CONFIGURED");
      assertThat(r.message()).contains("admin.tokenFile").contains("TALLY_ADMIN_TOKEN");
    }
    assertThat(stateOf(pending)).isEqualTo("pending_confirmation");
  }

  @Test
  void aResolveBodyIsReadStrictlyAndItsResultMustBeAnMcpToolResult() throws Exception {
    start(TOKEN);
    Execution unknown = execution(ExecutionState.OUTCOME_UNKNOWN);
    String resolve = "/v1/executions/" + unknown.id() + "/resolve";
    String text = "{\"type\":\"text\",\"text\":\"done\"}";
    Map<String, String> refused =
        Map.ofEntries(
            Map.entry("{\"outcome\":\"failed\",\"outcome\":\"completed\"}", "\"outcome\""),
            Map.entry(
                "{\"outcome\":\"completed\",\"result\":{\"content\":[{\"type\":\"text\","
                    + "\"text\":\"a\",\"text\":\"b\"}]}}",
                "duplicate member \"text\""),
            Map.entry("{\"outcome\":\"failed\",\"note\":\"x\"}", "\"note\": unknown member"),
            Map.entry("{\"outcome\":\"failed\",\"result\":{\"content\":[]}}", "result: present"),
            Map.entry("{\"outcome\":true}", "outcome: a boolean"),
            Map.entry("{\"outcome\":\"completed\",\"result\":{}}", "result.content: missing"),
            Map.entry(
                "{\"outcome\":\"completed\",\"result\":{\"content\":{}}}",
                "result.content: an object"),
            Map.entry(
                "{\"outcome\":\"completed\",\"result\":{\"content\":[\"done\"]}}",
                "result.content[0]: a string"),
            Map.entry(
                "{\"outcome\":\"completed\",\"result\":{\"content\":[" + text + ",{\"text\":1}]}}",
                "result.content[1].type: missing"),
            Map.entry(
                "{\"outcome\":\"completed\",\"result\":{\"content\":[{\"type\":\"txt\"}]}}",
                "result.content[0].type: not a content type"),
            Map.entry(
                "{\"outcome\":\"completed\",\"result\":{\"content\":[{\"type\":\"text\"}]}}",
                "result.content[0].text: missing"),
            Map.entry(
                "{\"outcome\":\"completed\",\"result\":{\"content\":[{\"type\":\"image\","
                    + "\"data\":\"not base64!\",\"mimeType\":\"image/png\"}]}}",
                "result.content[0].data: not Base64"),
            Map.entry(
                "{\"outcome\":\"completed\",\"result\":{\"content\":[{\"type\":\"resource\","
                    + "\"resource\":{\"uri\":\"file:///a\"}}]}}",
                "neither text nor blob"),
            Map.entry(
                "{\"outcome\":\"completed\",\"result\":{\"content\":["
                    + text
                    + "],"
                    + "\"isError\":\"no\"}}",
                "result.isError: a string"),
            Map.entry(
                "{\"outcome\":\"completed\",\"result\":{\"content\":["
                    + text
                    + "],"
                    + "\"structuredContent\":[1]}}",
                "result.structuredContent: an array"),
            Map.entry("{\"outcome\":\"failed\"} {}", "malformed JSON"),
            Map.entry("", "empty body"));
    for (Map.Entry<String, String> c : refused.entrySet()) {
      Reply r = post(resolve, "application/json", c.getKey());
      expect(r, 400, "INVALID_BODY");
      assertThat(r.message()).as(c.getKey()).contains(c.getValue());
    }
    Reply secret =
        post(
            resolve,
            "application/json",
            "{\"outcome\":\"completed\",\"result\":{\"content\":[{\"type\":\"sk-SECRET-value\"}]}}");
    assertThat(secret.message()).doesNotContain("SECRET");
    assertThat(stateOf(unknown)).as("no refused body settled it").isEqualTo("outcome_unknown");

    Reply ok =
        post(
            resolve,
            "application/json",
            "{\"outcome\":\"completed\",\"result\":{\"content\":["
                + text
                + ",{\"type\":\"image\",\"data\":\"aGk=\",\"mimeType\":\"image/png\"},"
                + "{\"type\":\"resource_link\",\"uri\":\"file:///r\",\"name\":\"r\"},"
                + "{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///a\",\"text\":\"a\"}}],"
                + "\"isError\":false,\"structuredContent\":{\"ticket\":\"T-9\"},\"_meta\":{}}}");
    assertThat(ok.status()).as(ok.body()).isEqualTo(200);
    assertThat(ok.json().path("state").asText()).isEqualTo("completed_not_delivered");
    assertThat(new String(await(store.result(unknown.id())).orElseThrow()))
        .contains("\"ticket\":\"T-9\"");
  }
}
