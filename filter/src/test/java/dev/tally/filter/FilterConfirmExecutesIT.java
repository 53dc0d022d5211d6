package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.testing.MutableClock;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 18 through the servlet filter and its {@link TallyAdminServlet}, in front of the MCP Java
 * SDK's servlet transport in Jetty: confirming runs the stored call at once through the app's own
 * MCP endpoint (same execution id, {@code Idempotency-Key}), the agent's retry replays what it
 * recorded, a cancelled or expired pending is never run and its retry gets the decision, the write
 * switch is live on the servlet, and a status tool settles an unknown outcome.
 */
class FilterConfirmExecutesIT {
  private static final String ALICE = "Bearer alice-filter-token-0123";
  private static final String BOB = "Bearer bob-filter-token-0123";
  private static final String ADMIN = "filter-admin-token-0123456789abcdef";

  private final HttpClient http = HttpClient.newHttpClient();
  private final MutableClock clock = MutableClock.at(Instant.now());
  private SdkApp app;

  @BeforeEach
  void start() throws Exception {
    TallyConfig config =
        TallyConfig.parse(
            "store: memory\n"
                + "confirmation:\n  url: https://app.example.com/tally\n  expiry: 10m\n"
                + "tools:\n  "
                + SdkApp.WRITE
                + ":\n    confirmationRequired: true\n  "
                + SdkApp.READ
                + ":\n    class: read_only\n  "
                + SdkApp.CLOSE
                + ":\n    class: status_check\n    statusTool: "
                + SdkApp.STATUS
                + "\n",
            "test",
            ConfigOverrides.none());
    app = SdkApp.withAdmin(config, ADMIN, clock);
  }

  @AfterEach
  void stop() throws Exception {
    app.close();
  }

  private RawMcp as(String authorization) throws Exception {
    RawMcp raw = new RawMcp(app.endpoint());
    raw.session.put("Authorization", authorization);
    return raw.initialize();
  }

  private record Reply(int status, JsonNode body) {}

  private Reply admin(String method, String path, String body, String authorization)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(app.admin(path))
            .timeout(Duration.ofSeconds(90))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), RawMcp.JSON.readTree(r.body()));
  }

  private String pending(RawMcp mcp, String message) throws Exception {
    JsonNode first = mcp.call(RawMcp.toolCall(SdkApp.WRITE, message));
    JsonNode sc = first.path("result").path("structuredContent");
    assertThat(sc.path("status").asText()).as(first.toString()).isEqualTo("pending_confirmation");
    return sc.path("actionId").asText();
  }

  private Execution execution(String id) {
    return app.filter
        .gate()
        .store()
        .find(new ExecutionId(id))
        .toCompletableFuture()
        .join()
        .orElseThrow();
  }

  /** Waits (bounded) until the execution {@code id} satisfies {@code done}. */
  private Execution await(String id, Predicate<Execution> done) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
    Execution e = execution(id);
    while (!done.test(e) && System.nanoTime() < deadline) {
      Thread.sleep(50);
      e = execution(id);
    }
    return e;
  }

  @Test
  void confirmingRunsTheStoredCallOnceAndTheRetryGetsItsResult() throws Exception {
    RawMcp alice = as(ALICE);
    String message = "confirm-" + UUID.randomUUID();
    String id = pending(alice, message);
    assertThat(app.writes.get()).as("nothing ran while pending").isZero();

    Reply list = admin("GET", "/v1/actions", null, ALICE);
    assertThat(list.body().path("items").path(0).path("actionId").asText()).isEqualTo(id);
    assertThat(
            list.body()
                .path("items")
                .path(0)
                .path("preview")
                .path("arguments")
                .path("message")
                .asText())
        .isEqualTo(message);
    assertThat(admin("GET", "/v1/actions", null, BOB).body().path("items")).isEmpty();

    Reply other = admin("POST", "/v1/actions/" + id + "/confirm", "{}", BOB);
    assertThat(other.status()).isEqualTo(404);
    assertThat(other.body().path("error").path("message").asText())
        .isEqualTo("no longer pending: decided, expired, or requested by someone else");
    assertThat(app.writes.get()).isZero();

    Reply ok = admin("POST", "/v1/actions/" + id + "/confirm", "{}", ALICE);
    assertThat(ok.status()).as(ok.body().toString()).isEqualTo(200);
    assertThat(ok.body().path("decision").asText()).isEqualTo("confirmed");
    assertThat(ok.body().path("state").asText()).isEqualTo("completed_not_delivered");
    assertThat(ok.body().path("result").path("content").path(0).path("text").asText())
        .isEqualTo("ticket T-1 for " + message);
    assertThat(app.writes.get()).as("confirming ran it, once").isOne();
    assertThat(app.seen.peek())
        .as("Idempotency-Key, request attribute and _meta: the same execution id")
        .containsExactly(id, id, id);
    Execution e = execution(id);
    assertThat(e.at(ExecutionState.DISPATCHED)).isNotNull();
    assertThat(e.timeline().keySet())
        .contains(
            ExecutionState.PENDING_CONFIRMATION,
            ExecutionState.AUTHORIZED,
            ExecutionState.DISPATCHED,
            ExecutionState.COMPLETED);

    JsonNode retry = alice.call(RawMcp.toolCall(SdkApp.WRITE, message));
    assertThat(retry.path("result").path("content").path(0).path("text").asText())
        .as(retry.toString())
        .isEqualTo("ticket T-1 for " + message);
    assertThat(
            retry
                .path("result")
                .path("_meta")
                .path("dev.tally/replay")
                .path("executionId")
                .asText())
        .isEqualTo(id);
    assertThat(app.writes.get()).as("the retry replayed it").isOne();
    assertThat(await(id, x -> x.state() == ExecutionState.DELIVERED).state())
        .isEqualTo(ExecutionState.DELIVERED);

    Reply again = admin("POST", "/v1/actions/" + id + "/confirm", "{}", ALICE);
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.body().path("error").path("code").asText()).isEqualTo("NOT_PENDING");
    assertThat(app.writes.get()).isOne();
  }

  @Test
  void theConfirmLinkOpensTheConsoleUnderTheServletsMapping() throws Exception {
    RawMcp alice = as(ALICE);
    JsonNode first = alice.call(RawMcp.toolCall(SdkApp.WRITE, "link-" + UUID.randomUUID()));
    String link = first.path("result").path("structuredContent").path("confirmUrl").asText();
    String id = first.path("result").path("structuredContent").path("actionId").asText();
    assertThat(link).isEqualTo("https://app.example.com/tally/console/actions/" + id);
    HttpResponse<String> page =
        http.send(
            HttpRequest.newBuilder(app.admin("/console/actions/" + id)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
    assertThat(page.headers().firstValue("Content-Security-Policy").orElse(""))
        .contains("default-src 'none'")
        .contains("frame-ancestors 'none'");
    assertThat(page.body())
        .contains("src=\"/tally/console/console.js\"")
        .contains("href=\"/tally/console/console.css\"")
        .doesNotContain(id);
    HttpResponse<String> script =
        http.send(
            HttpRequest.newBuilder(app.admin("/console/console.js")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(script.statusCode()).isEqualTo(200);
    assertThat(script.body()).contains("fetch(base + path");
    assertThat(app.writes.get()).isZero();
  }

  @Test
  void aCancelledPendingNeverRunsAndItsRetryGetsTheCancellation() throws Exception {
    RawMcp alice = as(ALICE);
    String message = "cancel-" + UUID.randomUUID();
    String id = pending(alice, message);
    Reply cancelled = admin("POST", "/v1/actions/" + id + "/cancel", "{}", ALICE);
    assertThat(cancelled.status()).as(cancelled.body().toString()).isEqualTo(200);
    assertThat(cancelled.body().path("decision").asText()).isEqualTo("cancelled");
    JsonNode retry = alice.call(RawMcp.toolCall(SdkApp.WRITE, message));
    assertThat(retry.path("result").path("structuredContent").path("tally").path("code").asText())
        .as(retry.toString())
        .isEqualTo("CONFIRMATION_CANCELLED");
    assertThat(admin("POST", "/v1/actions/" + id + "/confirm", "{}", ALICE).status())
        .isEqualTo(409);
    assertThat(app.writes.get()).isZero();
  }

  @Test
  void aPendingExpiresAtItsTimeWithoutAnyoneAskingAndIsNeverRun() throws Exception {
    RawMcp alice = as(ALICE);
    String message = "expire-" + UUID.randomUUID();
    String id = pending(alice, message);
    clock.advance(Duration.ofMinutes(10).plusSeconds(1));
    // The sweep (every Confirmations.SWEEP_EVERY) records it; nobody calls the API meanwhile.
    assertThat(await(id, x -> x.state() == ExecutionState.EXPIRED).state())
        .isEqualTo(ExecutionState.EXPIRED);
    Reply late = admin("POST", "/v1/actions/" + id + "/confirm", "{}", ALICE);
    assertThat(late.status()).isEqualTo(409);
    assertThat(late.body().path("error").path("message").asText()).contains("expired");
    JsonNode retry = alice.call(RawMcp.toolCall(SdkApp.WRITE, message));
    assertThat(retry.path("result").path("structuredContent").path("tally").path("code").asText())
        .as(retry.toString())
        .isEqualTo("CONFIRMATION_EXPIRED");
    assertThat(app.writes.get()).isZero();
  }

  @Test
  void theWriteSwitchOnTheServletIsLiveAndGuardedByTheAdminToken() throws Exception {
    RawMcp alice = as(ALICE);
    String id = pending(alice, "switch-" + UUID.randomUUID());
    assertThat(admin("POST", "/v1/writes", "{\"enabled\":false}", null).status()).isEqualTo(401);
    assertThat(admin("POST", "/v1/writes", "{\"enabled\":false}", ALICE).status()).isEqualTo(401);
    assertThat(admin("POST", "/v1/writes", "{\"enabled\":\"no\"}", "Bearer " + ADMIN).status())
        .isEqualTo(400);
    Reply off = admin("POST", "/v1/writes", "{\"enabled\":false}", "Bearer " + ADMIN);
    assertThat(off.status()).as(off.body().toString()).isEqualTo(200);
    assertThat(off.body().path("enabled").asBoolean(true)).isFalse();
    assertThat(
            admin("GET", "/v1/writes", null, "Bearer " + ADMIN)
                .body()
                .path("enabled")
                .asBoolean(true))
        .isFalse();

    JsonNode hidden = alice.call(RawMcp.toolCall(SdkApp.WRITE, "hidden-" + UUID.randomUUID()));
    assertThat(hidden.path("error").path("code").asInt()).as(hidden.toString()).isEqualTo(-32602);
    Reply refused = admin("POST", "/v1/actions/" + id + "/confirm", "{}", ALICE);
    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.body().path("error").path("code").asText()).isEqualTo("MCP_WRITE_DISABLED");
    assertThat(app.writes.get()).isZero();

    admin("POST", "/v1/writes", "{\"enabled\":true}", "Bearer " + ADMIN);
    assertThat(admin("POST", "/v1/actions/" + id + "/confirm", "{}", ALICE).status())
        .isEqualTo(200);
    assertThat(app.writes.get()).isOne();
  }

  @Test
  void aFormPostOrAForeignOriginCannotAct() throws Exception {
    RawMcp alice = as(ALICE);
    String id = pending(alice, "csrf-" + UUID.randomUUID());
    HttpResponse<String> form =
        http.send(
            HttpRequest.newBuilder(app.admin("/v1/actions/" + id + "/confirm"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Authorization", ALICE)
                .POST(HttpRequest.BodyPublishers.ofString("a=b"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(form.statusCode()).isEqualTo(415);
    HttpResponse<String> foreign =
        http.send(
            HttpRequest.newBuilder(app.admin("/v1/actions/" + id + "/confirm"))
                .header("Content-Type", "application/json")
                .header("Origin", "https://evil.example")
                .header("Authorization", ALICE)
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(foreign.statusCode()).isEqualTo(403);
    assertThat(app.writes.get()).isZero();
    assertThat(execution(id).state()).isEqualTo(ExecutionState.PENDING_CONFIRMATION);
  }

  @Test
  void theRetryAfterAnUnknownOutcomeIsSettledByTheStatusToolThroughTheFilter() throws Exception {
    RawMcp alice = as(ALICE);
    String message = "status-" + UUID.randomUUID();
    // The app runs the call but its answer is lost between the app and the filter.
    Map<String, String> lost = new java.util.LinkedHashMap<>(alice.session);
    lost.put(SdkApp.DROP_ANSWER, "1");
    alice.post(RawMcp.toolCall(SdkApp.CLOSE, message).toString(), lost);
    assertThat(app.writes.get()).isZero(); // close_ticket is not the counted write tool
    var unknown =
        app.filter
            .gate()
            .store()
            .list(new dev.tally.core.store.ExecutionQuery(null, SdkApp.CLOSE, null, null, 10))
            .toCompletableFuture()
            .join()
            .items();
    assertThat(unknown).hasSize(1);
    String id = unknown.get(0).id().value();
    assertThat(await(id, x -> x.state() == ExecutionState.OUTCOME_UNKNOWN).state())
        .isEqualTo(ExecutionState.OUTCOME_UNKNOWN);
    int before = app.statusLookups.get();

    JsonNode retry = alice.call(RawMcp.toolCall(SdkApp.CLOSE, message));
    assertThat(retry.path("result").path("content").path(0).path("text").asText())
        .as(retry.toString())
        .isEqualTo("found ticket T-1 for " + message);
    assertThat(app.statusLookups.get() - before).as("one lookup").isOne();
    assertThat(app.closes.get()).as("nothing ran twice").isOne();
    alice.call(RawMcp.toolCall(SdkApp.CLOSE, message));
    assertThat(app.statusLookups.get() - before).as("settled: no second lookup").isOne();
    assertThat(app.closes.get()).isOne();
  }
}
