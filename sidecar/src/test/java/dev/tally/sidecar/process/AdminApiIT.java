package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.audit.AuditTimeline;
import dev.tally.sidecar.process.CountingUpstream.Script;
import dev.tally.sidecar.testing.RawHttp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin execution API end to end (issue 3): a Tally server in this JVM on the journal store, a
 * counting upstream behind it, agents over raw sockets in front, and an operator on the admin port
 * with a bearer token. Every operator action is checked by what the next retry gets and by what the
 * upstream did.
 */
class AdminApiIT {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String TOKEN = "admin-token-0123456789abcdef-0123456789";

  @RegisterExtension
  static final CountingUpstreamExtension UPSTREAM = new CountingUpstreamExtension();

  private final CountingUpstream upstream = UPSTREAM.get();

  @TempDir Path dir;
  private final McpClient agent = new McpClient();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final List<String> log = new CopyOnWriteArrayList<>();
  private InJvmTally tally;
  private URI mcp;

  @AfterEach
  void stop() throws Exception {
    if (tally != null) {
      tally.close();
    }
    agent.close();
    assertThat(String.join("\n", log)).doesNotContain(TOKEN);
  }

  /** Starts Tally with the admin token and {@code toolsYaml} (may be empty). */
  private void start(String toolsYaml) throws Exception {
    Path token = dir.resolve("admin.token");
    Files.writeString(token, TOKEN + "\n");
    tally =
        InJvmTally.start(
            dir,
            upstream.url(),
            "admin:\n  listen: 127.0.0.1:0\n  tokenFile: " + token + "\n" + toolsYaml,
            log::add);
    mcp = tally.mcp;
  }

  // ---- operator actions --------------------------------------------------------------------

  @Test
  void anUnknownOutcomeSettledAsCompletedIsReplayedToTheRetryAndNothingRunsTwice()
      throws Exception {
    start("");
    String title = "admin-completed";
    upstream.script(title, Script.RESET); // performed, then the connection closes unanswered
    McpClient.Answer first = agent.call(mcp, 1, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(first.tallyCode()).as(first.body()).isEqualTo("OUTCOME_UNKNOWN");
    String id = onlyExecution("outcome_unknown");

    McpClient.Answer retry = agent.call(mcp, 2, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(retry.tallyCode()).as(retry.body()).isEqualTo("OUTCOME_UNKNOWN");
    assertThat(upstream.sideEffects(title)).isEqualTo(1);

    // The operator looked at the ticket system and found the ticket: settle it with that result.
    ObjectNode result = JsonNodeFactory.instance.objectNode();
    result.putArray("content").addObject().put("type", "text").put("text", "created ticket T-x");
    result.putObject("structuredContent").put("ticket", "T-x");
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("outcome", "completed");
    body.set("result", result);
    Reply settled = post("/v1/executions/" + id + "/resolve", body.toString());
    assertThat(settled.status()).as(settled.body()).isEqualTo(200);
    assertThat(settled.json().path("state").asText()).isEqualTo("completed_not_delivered");
    assertThat(settled.json().path("timeline").has("completed_at")).isTrue();

    McpClient.Answer replayed =
        agent.call(mcp, 3, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(replayed.ticket()).as(replayed.body()).isEqualTo("T-x");
    assertThat(replayed.message().path("id").asLong()).isEqualTo(3);
    assertThat(replayed.replay().path("executionId").asText()).isEqualTo(id);
    assertThat(upstream.sideEffects(title)).as("the retries never reached the upstream").isOne();
    Poll.until(
        WAIT,
        () -> all("state=delivered").size() == 1,
        () -> "the replay that reached its client was not recorded: " + all(""));
    assertThat(AuditTimeline.render(dir.resolve("journal").resolve("audit"), Optional.of(id)))
        .contains("settled as completed at")
        .contains("without a new dispatch (an operator's resolve)")
        .contains("the settled result was replayed to a client at");

    Reply again = post("/v1/executions/" + id + "/resolve", body.toString());
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.errorCode()).isEqualTo("WRONG_STATE");
    assertThat(again.errorMessage()).contains("is delivered").contains("outcome_unknown");
  }

  @Test
  void anUnknownOutcomeSettledAsFailedReleasesTheCallAndTheRetryRunsItOnce() throws Exception {
    start("");
    String title = "admin-failed";
    upstream.reachable(false); // the upstream drops the connection: nothing was performed
    try {
      agent.call(mcp, 1, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    } finally {
      upstream.reachable(true);
    }
    String id = onlyExecution("outcome_unknown");
    assertThat(upstream.sideEffects(title)).isZero();

    Reply failed = post("/v1/executions/" + id + "/resolve", "{\"outcome\":\"failed\"}");
    assertThat(failed.status()).as(failed.body()).isEqualTo(200);
    assertThat(failed.json().path("state").asText()).isEqualTo("failed");

    McpClient.Answer retry = agent.call(mcp, 2, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(retry.isToolResult()).as(retry.body()).isTrue();
    assertThat(upstream.sideEffects(title)).isOne();
    String second = upstream.receipts(title).get(0).executionId();
    assertThat(second).as("a new execution, not the failed one").isNotEqualTo(id);
    assertThat(get("/v1/executions/" + id).json().path("state").asText()).isEqualTo("failed");
  }

  @Test
  void theOperatorTokenCannotConfirmOrCancelAnActorsPendingCall() throws Exception {
    start("tools:\n  create_ticket:\n    confirmationRequired: true\n");
    String title = "admin-confirm";
    McpClient.Answer first = agent.call(mcp, 1, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(first.tallyCode()).as(first.body()).isEqualTo("PENDING_CONFIRMATION");
    String id = first.result().path("structuredContent").path("tally").path("executionId").asText();
    assertThat(onlyExecution("pending_confirmation")).isEqualTo(id);
    McpClient.Answer stillPending =
        agent.call(mcp, 2, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(stillPending.tallyCode()).isEqualTo("PENDING_CONFIRMATION");

    // Issue 18: only the actor that made the call decides (/v1/actions; ConfirmationIT).
    expectError(post("/v1/executions/" + id + "/confirm", ""), 403, "DECIDED_BY_ITS_ACTOR");
    expectError(post("/v1/executions/" + id + "/cancel", ""), 403, "DECIDED_BY_ITS_ACTOR");
    assertThat(get("/v1/executions/" + id).json().path("state").asText())
        .isEqualTo("pending_confirmation");
    assertThat(upstream.sideEffects(title)).isZero();
  }

  // ---- listing --------------------------------------------------------------------------------

  @Test
  void theListPagesThroughEveryExecutionOnceAndFiltersByStateAndTool() throws Exception {
    start("");
    Set<String> made = new HashSet<>();
    for (int i = 0; i < 5; i++) {
      String title = "admin-list-" + i;
      String tool = i < 3 ? CountingUpstream.IRREVERSIBLE : CountingUpstream.KEYED;
      McpClient.Answer a = agent.call(mcp, i, tool, title, null, WAIT);
      assertThat(a.isToolResult()).as(a.body()).isTrue();
      made.add(upstream.receipts(title).get(0).executionId());
    }
    Poll.until(
        WAIT,
        () -> all("state=delivered&limit=50").size() == 5,
        () -> "delivered: " + all("state=delivered&limit=50"));

    List<String> paged = new ArrayList<>();
    String before = null;
    int pages = 0;
    do {
      Reply page = get("/v1/executions?limit=2" + (before == null ? "" : "&before=" + before));
      assertThat(page.status()).as(page.body()).isEqualTo(200);
      assertThat(page.json().path("items").size()).isLessThanOrEqualTo(2);
      page.json().path("items").forEach(e -> paged.add(e.path("executionId").asText()));
      before = page.json().path("next").asText(null);
      pages++;
    } while (before != null && pages < 10);
    assertThat(paged).doesNotHaveDuplicates();
    assertThat(new HashSet<>(paged)).isEqualTo(made);
    assertThat(pages).isEqualTo(3);

    assertThat(all("tool=" + CountingUpstream.KEYED)).hasSize(2);
    assertThat(all("tool=" + CountingUpstream.IRREVERSIBLE)).hasSize(3);
    assertThat(all("state=outcome_unknown")).isEmpty();
    JsonNode one = get("/v1/executions/" + paged.get(0)).json();
    assertThat(one.path("executionId").asText()).isEqualTo(paged.get(0));
    assertThat(one.path("timeline").has("dispatched_at")).isTrue();
    assertThat(one.toString()).doesNotContain("admin-list-"); // no raw argument value
  }

  // ---- guard and bad input --------------------------------------------------------------------

  @Test
  void theTokenGuardsTheExecutionApiButNotTheProbes() throws Exception {
    start("");
    URI list = admin("/v1/executions");
    for (String auth : new String[] {null, "Bearer wrong-token", "Basic " + TOKEN, "Bearer"}) {
      HttpRequest.Builder b = HttpRequest.newBuilder(list).GET();
      if (auth != null) {
        b.header("Authorization", auth);
      }
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(String.valueOf(auth)).isEqualTo(401);
      assertThat(r.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
      assertThat(r.body()).contains("UNAUTHORIZED").doesNotContain(TOKEN);
    }
    HttpResponse<String> post =
        http.send(
            HttpRequest.newBuilder(admin("/v1/executions/act_01JD0000000000000000000000/cancel"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(401);
    assertThat(get("/v1/executions").status()).isEqualTo(200);
    for (String probe : List.of("/healthz", "/readyz", "/metrics")) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(admin(probe)).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(probe).isIn(200, 503);
      assertThat(r.statusCode()).as(probe).isNotEqualTo(401);
    }
  }

  @Test
  void badRequestsGetCodedErrorsAndChangeNothing() throws Exception {
    start("");
    String title = "admin-bad";
    upstream.script(title, Script.RESET);
    agent.call(mcp, 1, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    String id = onlyExecution("outcome_unknown");
    String resolve = "/v1/executions/" + id + "/resolve";

    expectError(get("/v1/executions/not-an-id"), 400, "INVALID_ID");
    expectError(get("/v1/executions/act_01JD0000000000000000000000"), 404, "NOT_FOUND");
    expectError(
        post("/v1/executions/act_01JD0000000000000000000000/cancel", ""),
        403,
        "DECIDED_BY_ITS_ACTOR");
    expectError(post("/v1/executions/" + id + "/explode", ""), 404, "NOT_FOUND");
    expectError(get(resolve), 405, "METHOD_NOT_ALLOWED");
    expectError(post("/v1/executions", "{}"), 405, "METHOD_NOT_ALLOWED");
    expectError(get("/v1/executions?state=sleeping"), 400, "INVALID_QUERY");
    for (String limit : List.of("0", "-3", "abc", "100000")) {
      expectError(get("/v1/executions?limit=" + limit), 400, "INVALID_QUERY");
    }
    expectError(get("/v1/executions?before=yesterday"), 400, "INVALID_QUERY");
    expectError(get("/v2/anything"), 404, "NOT_FOUND");
    expectError(post(resolve, "{\"outcome\":"), 400, "INVALID_BODY");
    expectError(post(resolve, "[1,2]"), 400, "INVALID_BODY");
    expectError(post(resolve, "{\"outcome\":\"maybe\"}"), 400, "INVALID_BODY");
    expectError(post(resolve, "{\"outcome\":\"completed\"}"), 400, "INVALID_BODY");
    expectError(
        post(resolve, "{\"outcome\":\"completed\",\"result\":\"T-1\"}"), 400, "INVALID_BODY");
    expectError(post("/v1/executions/" + id + "/confirm", ""), 403, "DECIDED_BY_ITS_ACTOR");

    assertThat(get("/v1/executions/" + id).json().path("state").asText())
        .as("nothing above changed the execution")
        .isEqualTo("outcome_unknown");
    assertThat(upstream.sideEffects(title)).isOne();
  }

  /**
   * A resolve body over the admin limit (4 MiB) gets 413, and the connection closes only once the
   * operator's client has finished sending it: closing with unread bytes would reset the connection
   * and could destroy the answer before it is read.
   */
  @Test
  void anOversizedResolveBodyIs413AndIsReadToItsEndBeforeTheConnectionCloses() throws Exception {
    start("");
    String title = "admin-big";
    upstream.script(title, Script.RESET);
    agent.call(mcp, 1, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    String id = onlyExecution("outcome_unknown");
    int total = 6 << 20;
    URI u = admin("/v1/executions/" + id + "/resolve");
    String answer =
        RawHttp.answerWhileSending(
            u,
            "POST "
                + u.getRawPath()
                + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                + TOKEN
                + "\r\nContent-Type: application/json\r\nContent-Length: "
                + total
                + "\r\n\r\n",
            total);
    assertThat(answer).startsWith("HTTP/1.1 413").contains("PAYLOAD_TOO_LARGE");
    assertThat(answer.toLowerCase(Locale.ROOT)).contains("connection: close");
    assertThat(get("/v1/executions/" + id).json().path("state").asText())
        .isEqualTo("outcome_unknown");
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** An admin answer: status and JSON body. */
  record Reply(int status, String body, JsonNode json) {
    String errorCode() {
      return json.path("error").path("code").asText("");
    }

    String errorMessage() {
      return json.path("error").path("message").asText("");
    }
  }

  private URI admin(String pathAndQuery) {
    return tally.admin(pathAndQuery);
  }

  private Reply get(String pathAndQuery) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(admin(pathAndQuery)).GET());
  }

  private Reply post(String path, String body) throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(admin(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  private Reply send(HttpRequest.Builder b) throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(
            b.header("Authorization", "Bearer " + TOKEN).timeout(WAIT).build(),
            HttpResponse.BodyHandlers.ofString());
    JsonNode json =
        r.body().isBlank()
            ? JsonNodeFactory.instance.objectNode()
            : McpClient.JSON.readTree(r.body());
    return new Reply(r.statusCode(), r.body(), json);
  }

  private static void expectError(Reply r, int status, String code) {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    assertThat(r.errorCode()).as(r.body()).isEqualTo(code);
    assertThat(r.errorMessage()).as(r.body()).isNotBlank();
  }

  /** Every listed execution matching {@code query}, following the pages. */
  private List<JsonNode> all(String query) {
    try {
      List<JsonNode> out = new ArrayList<>();
      String before = null;
      for (int pages = 0; pages < 100; pages++) {
        Reply r = get("/v1/executions?" + query + (before == null ? "" : "&before=" + before));
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        r.json().path("items").forEach(out::add);
        before = r.json().path("next").asText(null);
        if (before == null) {
          return out;
        }
      }
      throw new AssertionError("more than 100 pages for " + query);
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Waits until exactly one execution is in {@code state}; returns its id. */
  private String onlyExecution(String state) throws InterruptedException {
    Poll.until(WAIT, () -> all("state=" + state).size() == 1, () -> state + ": " + all(""));
    return all("state=" + state).get(0).path("executionId").asText();
  }
}
