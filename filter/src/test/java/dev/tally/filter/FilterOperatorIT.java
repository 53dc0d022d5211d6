package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.testing.MutableClock;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator's execution resource through the filter's {@link TallyAdminServlet} (issue 18), in
 * front of the MCP Java SDK's servlet transport in Jetty: a write whose answer is lost between the
 * app and the filter becomes {@code outcome_unknown}; the operator lists it (admin token only),
 * reads its timeline and resolves it; the agent's retry then replays the resolved result (resolved
 * as completed) or runs anew (resolved as failed), never a second time unasked.
 */
class FilterOperatorIT {
  private static final String ALICE = "Bearer alice-operator-token-0123";
  private static final String ADMIN = "filter-operator-admin-token-0123456789";
  private static final String OPERATOR = "Bearer " + ADMIN;

  private final HttpClient http = HttpClient.newHttpClient();
  private final MutableClock clock = MutableClock.at(Instant.now());
  private SdkApp app;

  @BeforeEach
  void start() throws Exception {
    TallyConfig config =
        TallyConfig.parse(
            "store: memory\ntools:\n  " + SdkApp.READ + ":\n    class: read_only\n",
            "test",
            ConfigOverrides.none());
    app = SdkApp.withAdmin(config, ADMIN, clock);
  }

  @AfterEach
  void stop() throws Exception {
    app.close();
  }

  private record Reply(int status, JsonNode body, HttpResponse<String> raw) {}

  private Reply admin(String method, String path, String body, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(app.admin(path))
            .timeout(Duration.ofSeconds(60))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(b::header);
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), RawMcp.JSON.readTree(r.body()), r);
  }

  private Reply operator(String method, String path, String body) throws Exception {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Authorization", OPERATOR);
    if (body != null) {
      h.put("Content-Type", "application/json");
    }
    return admin(method, path, body, h);
  }

  /** Runs a write whose answer the app drops; waits until the operator lists it as unknown. */
  private String lostWrite(RawMcp alice, String message) throws Exception {
    Map<String, String> lost = new LinkedHashMap<>(alice.session);
    lost.put(SdkApp.DROP_ANSWER, "1");
    alice.post(RawMcp.toolCall(SdkApp.WRITE, message).toString(), lost);
    assertThat(app.writes.get()).as("the app ran it").isOne();
    long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
    while (true) {
      Reply list =
          operator("GET", "/v1/executions?state=outcome_unknown&tool=" + SdkApp.WRITE, null);
      assertThat(list.status()).as(list.body().toString()).isEqualTo(200);
      if (list.body().path("items").size() == 1) {
        return list.body().path("items").path(0).path("executionId").asText();
      }
      assertThat(System.nanoTime()).as("listed as outcome_unknown in time").isLessThan(deadline);
      Thread.sleep(50); // polling the listed state, bounded above
    }
  }

  private RawMcp as(String authorization) throws Exception {
    RawMcp raw = new RawMcp(app.endpoint());
    raw.session.put("Authorization", authorization);
    return raw.initialize();
  }

  @Test
  void anUnknownOutcomeIsListedResolvedAsCompletedAndTheRetryReplaysIt() throws Exception {
    RawMcp alice = as(ALICE);
    String message = "lost-" + UUID.randomUUID();
    String id = lostWrite(alice, message);

    JsonNode blocked = alice.call(RawMcp.toolCall(SdkApp.WRITE, message));
    assertThat(blocked.path("result").path("structuredContent").path("tally").path("code").asText())
        .as(blocked.toString())
        .isEqualTo("OUTCOME_UNKNOWN");
    assertThat(app.writes.get()).as("an irreversible write is not sent again").isOne();

    Reply one = operator("GET", "/v1/executions/" + id, null);
    assertThat(one.status()).isEqualTo(200);
    assertThat(one.body().path("state").asText()).isEqualTo("outcome_unknown");
    assertThat(one.body().path("tool").asText()).isEqualTo(SdkApp.WRITE);
    assertThat(one.body().path("actor").asText()).isNotEmpty().doesNotContain("alice-operator");
    assertThat(one.body().path("timeline").has("accepted_at")).isTrue();
    assertThat(one.body().path("timeline").has("dispatched_at")).isTrue();
    assertThat(one.body().path("timeline").has("outcome_unknown_at")).isTrue();
    assertThat(one.raw().headers().firstValue("Cache-Control")).hasValue("no-store");

    String resolved = "ticket established by the operator for " + message;
    Reply ok =
        operator(
            "POST",
            "/v1/executions/" + id + "/resolve",
            "{\"outcome\":\"completed\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\""
                + resolved
                + "\"}]}}");
    assertThat(ok.status()).as(ok.body().toString()).isEqualTo(200);
    assertThat(ok.body().path("executionId").asText()).isEqualTo(id);
    assertThat(ok.body().path("state").asText()).isEqualTo("completed_not_delivered");
    assertThat(operator("GET", "/v1/executions?state=outcome_unknown", null).body().path("items"))
        .isEmpty();

    JsonNode retry = alice.call(RawMcp.toolCall(SdkApp.WRITE, message));
    assertThat(retry.path("result").path("content").path(0).path("text").asText())
        .as(retry.toString())
        .isEqualTo(resolved);
    assertThat(
            retry
                .path("result")
                .path("_meta")
                .path("dev.tally/replay")
                .path("executionId")
                .asText())
        .isEqualTo(id);
    assertThat(app.writes.get()).as("the retry replayed the resolved result").isOne();

    Reply again = operator("POST", "/v1/executions/" + id + "/resolve", "{\"outcome\":\"failed\"}");
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.body().path("error").path("code").asText()).isEqualTo("WRONG_STATE");
  }

  @Test
  void resolvedAsFailedTheRetryRunsTheCallAnew() throws Exception {
    RawMcp alice = as(ALICE);
    String message = "nothing-" + UUID.randomUUID();
    String id = lostWrite(alice, message);
    Reply failed =
        operator("POST", "/v1/executions/" + id + "/resolve", "{\"outcome\":\"failed\"}");
    assertThat(failed.status()).as(failed.body().toString()).isEqualTo(200);
    assertThat(failed.body().path("state").asText()).isEqualTo("failed");
    JsonNode retry = alice.call(RawMcp.toolCall(SdkApp.WRITE, message));
    assertThat(retry.path("result").path("content").path(0).path("text").asText())
        .as(retry.toString())
        .isEqualTo("ticket T-2 for " + message);
    assertThat(app.writes.get()).isEqualTo(2);
  }

  @Test
  void onlyTheAdminTokenReadsOrResolvesAndBadRequestsGetTheSidecarsCodes() throws Exception {
    RawMcp alice = as(ALICE);
    String id = lostWrite(alice, "guarded-" + UUID.randomUUID());

    Reply anonymous = admin("GET", "/v1/executions", null, Map.of());
    assertThat(anonymous.status()).isEqualTo(401);
    assertThat(anonymous.raw().headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
    assertThat(admin("GET", "/v1/executions/" + id, null, Map.of("Authorization", ALICE)).status())
        .as("an agent's own credential is not the operator's")
        .isEqualTo(401);
    Reply agentResolves =
        admin(
            "POST",
            "/v1/executions/" + id + "/resolve",
            "{\"outcome\":\"failed\"}",
            Map.of("Authorization", ALICE, "Content-Type", "application/json"));
    assertThat(agentResolves.status()).isEqualTo(401);

    assertCode(operator("GET", "/v1/executions?state=lost", null), 400, "INVALID_QUERY");
    assertCode(operator("GET", "/v1/executions?limit=0", null), 400, "INVALID_QUERY");
    assertCode(operator("GET", "/v1/executions?before=nope", null), 400, "INVALID_QUERY");
    assertCode(operator("GET", "/v1/executions/act_nope", null), 400, "INVALID_ID");
    assertCode(
        operator("GET", "/v1/executions/act_01JDX0000000000000000000AA", null), 404, "NOT_FOUND");
    assertCode(operator("POST", "/v1/executions/" + id + "/undo", "{}"), 404, "NOT_FOUND");
    assertCode(operator("DELETE", "/v1/executions/" + id, null), 405, "METHOD_NOT_ALLOWED");
    assertCode(
        operator("POST", "/v1/executions/" + id + "/resolve", "{\"outcome\":\"maybe\"}"),
        400,
        "INVALID_BODY");
    assertCode(
        operator(
            "POST",
            "/v1/executions/" + id + "/resolve",
            "{\"outcome\":\"failed\",\"outcome\":\"completed\"}"),
        400,
        "INVALID_BODY");
    assertCode(
        operator(
            "POST",
            "/v1/executions/" + id + "/resolve",
            "{\"outcome\":\"completed\",\"result\":{\"content\":[{\"type\":\"text\"}]}}"),
        400,
        "INVALID_BODY");
    assertCode(
        operator("POST", "/v1/executions/" + id + "/confirm", "{}"), 403, "DECIDED_BY_ITS_ACTOR");
    Reply form =
        admin(
            "POST",
            "/v1/executions/" + id + "/resolve",
            "outcome=failed",
            Map.of("Authorization", OPERATOR, "Content-Type", "application/x-www-form-urlencoded"));
    assertCode(form, 415, "UNSUPPORTED_MEDIA_TYPE");
    assertThat(form.raw().headers().firstValue("Accept")).hasValue("application/json");
    Reply foreign =
        admin(
            "POST",
            "/v1/executions/" + id + "/resolve",
            "{\"outcome\":\"failed\"}",
            Map.of(
                "Authorization",
                OPERATOR,
                "Content-Type",
                "application/json",
                "Origin",
                "https://evil.example"));
    assertCode(foreign, 403, "CROSS_ORIGIN");

    Reply page = operator("GET", "/v1/executions?limit=1", null);
    assertThat(page.body().path("items")).hasSize(1);
    assertThat(operator("GET", "/v1/executions/" + id, null).body().path("state").asText())
        .as("no refused request changed anything")
        .isEqualTo("outcome_unknown");
    assertThat(app.writes.get()).isOne();
  }

  @Test
  void withoutAnAdminTokenTheExecutionsAnswer403() throws Exception {
    app.close();
    TallyConfig config = TallyConfig.parse("store: memory\n", "test", ConfigOverrides.none());
    app = SdkApp.withAdmin(config, null, clock);
    Reply r = operator("GET", "/v1/executions", null);
    assertCode(r, 403, "TOKEN_NOT_CONFIGURED");
  }

  private static void assertCode(Reply r, int status, String code) {
    assertThat(r.status()).as(r.body().toString()).isEqualTo(status);
    assertThat(r.body().path("error").path("code").asText()).isEqualTo(code);
  }
}
