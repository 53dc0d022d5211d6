package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18 through the sidecar: a Tally server in this JVM on the journal store in front of a
 * counting upstream; agents with their own bearer tokens (their actors), and the operator with the
 * admin token. A confirmation is made by the call's own actor on {@code /v1/actions} and runs the
 * call itself; the write switch hides write tools as unknown tools.
 */
class ConfirmationIT {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String TOKEN = "admin-token-0123456789abcdef-0123456789";
  private static final String ALICE = "Bearer alice-token-0123456789";
  private static final String BOB = "Bearer bob-token-9876543210";

  @RegisterExtension
  static final CountingUpstreamExtension UPSTREAM = new CountingUpstreamExtension();

  private final CountingUpstream upstream = UPSTREAM.get();

  @TempDir Path dir;
  private final McpClient alice = new McpClient(ALICE);
  private final McpClient bob = new McpClient(BOB);
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final List<String> log = new CopyOnWriteArrayList<>();
  private InJvmTally tally;
  private URI mcp;

  @BeforeEach
  void start() throws Exception {
    Path token = dir.resolve("admin.token");
    Files.writeString(token, TOKEN + "\n");
    tally =
        InJvmTally.start(
            dir,
            upstream.url(),
            "admin:\n  listen: 127.0.0.1:0\n  tokenFile: "
                + token
                + "\ntools:\n  create_ticket:\n    confirmationRequired: true\n"
                + "confirmation:\n  tools:\n    create_ticket: 20m\n",
            log::add);
    mcp = tally.mcp;
  }

  @AfterEach
  void stop() throws Exception {
    if (tally != null) {
      tally.close();
    }
    alice.close();
    bob.close();
    String all = String.join("\n", log);
    assertThat(all).doesNotContain(TOKEN).doesNotContain("alice-token").doesNotContain("bob-token");
  }

  @Test
  void confirmingThroughTheActionsApiRunsTheCallOnceAndTheRetryGetsItsResult() throws Exception {
    String title = "confirm-" + UUID.randomUUID();
    McpClient.Answer first = alice.call(mcp, 1, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    JsonNode sc = first.result().path("structuredContent");
    assertThat(sc.path("status").asText()).as(first.body()).isEqualTo("pending_confirmation");
    assertThat(first.result().path("isError").asBoolean(true)).isFalse();
    String id = sc.path("actionId").asText();
    assertThat(sc.path("confirmUrl").asText())
        .isEqualTo(tally.admin("/console/actions/" + id).toString());
    assertThat(sc.path("preview").path("arguments").path("title").asText()).isEqualTo(title);
    assertThat(sc.path("expiresAt").asText()).isNotBlank();

    McpClient.Answer again = alice.call(mcp, 2, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(again.result().path("structuredContent").path("actionId").asText()).isEqualTo(id);
    assertThat(upstream.sideEffects(title)).isZero();

    Reply mine = send("GET", "/v1/actions", null, ALICE);
    assertThat(mine.json().path("items").findValuesAsText("actionId")).contains(id);
    JsonNode item = mine.json().path("items").get(0);
    assertThat(item.path("expiresInSeconds").asLong()).isBetween(1L, 20 * 60L);
    assertThat(item.path("preview").path("tool").asText()).isEqualTo("create_ticket");

    Reply confirmed = send("POST", "/v1/actions/" + id + "/confirm", "{}", ALICE);
    assertThat(confirmed.status()).as(confirmed.body()).isEqualTo(200);
    assertThat(confirmed.json().path("decision").asText()).isEqualTo("confirmed");
    assertThat(confirmed.json().path("state").asText()).isEqualTo("completed_not_delivered");
    assertThat(upstream.sideEffects(title)).isOne();
    CountingUpstream.Receipt r = upstream.receipts(title).get(0);
    assertThat(r.executionId()).isEqualTo(id);
    assertThat(r.idempotencyKey()).isEqualTo(id);
    assertThat(r.authorization()).isEqualTo(ALICE);

    McpClient.Answer retry = alice.call(mcp, 3, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(retry.isToolResult()).as(retry.body()).isTrue();
    assertThat(retry.replay().path("executionId").asText()).isEqualTo(id);
    assertThat(upstream.sideEffects(title)).isOne();

    Reply twice = send("POST", "/v1/actions/" + id + "/confirm", "{}", ALICE);
    assertThat(twice.status()).as(twice.body()).isEqualTo(409);
    assertThat(twice.json().path("error").path("code").asText()).isEqualTo("NOT_PENDING");
    assertThat(upstream.sideEffects(title)).isOne();
  }

  @Test
  void someoneElseCannotSeeOrDecideAndTheOperatorTokenCannotConfirm() throws Exception {
    String title = "other-" + UUID.randomUUID();
    String id = pending(alice, title);
    for (Reply r :
        List.of(
            send("GET", "/v1/actions/" + id, null, BOB),
            send("POST", "/v1/actions/" + id + "/confirm", "{}", BOB),
            send("POST", "/v1/actions/" + id + "/cancel", "{}", BOB),
            send("POST", "/v1/actions/" + id + "/confirm", "{}", null))) {
      assertThat(r.status()).as(r.body()).isEqualTo(404);
      assertThat(r.json().path("error").path("message").asText())
          .isEqualTo("no longer pending: decided, expired, or requested by someone else");
    }
    assertThat(send("GET", "/v1/actions", null, BOB).json().path("items").size()).isZero();
    Reply operator = send("POST", "/v1/executions/" + id + "/confirm", "{}", "Bearer " + TOKEN);
    assertThat(operator.status()).as(operator.body()).isEqualTo(403);
    assertThat(operator.json().path("error").path("code").asText())
        .isEqualTo("DECIDED_BY_ITS_ACTOR");
    Reply form = sendTyped("POST", "/v1/actions/" + id + "/confirm", "{}", ALICE, "text/plain");
    assertThat(form.status()).as("no simple cross-site request can act").isEqualTo(415);
    assertThat(state(id)).isEqualTo("pending_confirmation");
    assertThat(upstream.sideEffects(title)).isZero();
  }

  @Test
  void aCancelledCallsRetryGetsTheCancellationAndNothingRuns() throws Exception {
    String title = "cancel-" + UUID.randomUUID();
    String id = pending(alice, title);
    Reply cancelled = send("POST", "/v1/actions/" + id + "/cancel", "{}", ALICE);
    assertThat(cancelled.status()).as(cancelled.body()).isEqualTo(200);
    assertThat(cancelled.json().path("state").asText()).isEqualTo("cancelled");
    McpClient.Answer retry = alice.call(mcp, 2, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(retry.tallyCode()).as(retry.body()).isEqualTo("CONFIRMATION_CANCELLED");
    assertThat(retry.result().path("structuredContent").path("tally").path("executionId").asText())
        .isEqualTo(id);
    McpClient.Answer newKey =
        alice.call(mcp, 3, CountingUpstream.IRREVERSIBLE, title, "fresh-key-1", WAIT);
    assertThat(newKey.result().path("structuredContent").path("actionId").asText())
        .as("a new key asks again on purpose")
        .isNotEqualTo(id)
        .startsWith("act_");
    assertThat(upstream.sideEffects(title)).isZero();
  }

  @Test
  void revokingAnActorCancelsItsPendingCallsAndHidesItsWrites() throws Exception {
    String a = pending(alice, "rev-a-" + UUID.randomUUID());
    String b = pending(bob, "rev-b-" + UUID.randomUUID());
    String actor =
        send("GET", "/v1/executions/" + a, null, "Bearer " + TOKEN).json().path("actor").asText();
    assertThat(actor).isNotBlank();
    Reply revoked = send("POST", "/v1/actors/" + actor + "/revoke", "{}", "Bearer " + TOKEN);
    assertThat(revoked.status()).as(revoked.body()).isEqualTo(200);
    assertThat(revoked.json().path("cancelled").asInt()).isEqualTo(1);
    assertThat(state(a)).isEqualTo("cancelled");
    assertThat(state(b)).isEqualTo("pending_confirmation");
    McpClient.Answer hidden =
        alice.call(
            mcp, 9, CountingUpstream.IRREVERSIBLE, "rev-new-" + UUID.randomUUID(), null, WAIT);
    assertThat(hidden.message().path("error").path("code").asInt())
        .as(hidden.body())
        .isEqualTo(-32602);
  }

  @Test
  void theWriteSwitchHidesWriteToolsAsUnknownToolsUntilSwitchedOnAgain() throws Exception {
    Reply off = send("POST", "/v1/writes", "{\"enabled\":false}", "Bearer " + TOKEN);
    assertThat(off.status()).as(off.body()).isEqualTo(200);
    assertThat(off.json().path("enabled").asBoolean(true)).isFalse();
    String title = "switch-" + UUID.randomUUID();
    McpClient.Answer hidden = alice.call(mcp, 1, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(hidden.message().path("error").path("code").asInt())
        .as(hidden.body())
        .isEqualTo(-32602);
    assertThat(hidden.message().path("error").path("message").asText())
        .isEqualTo("Unknown tool: create_ticket");
    assertThat(hidden.message().path("error").has("data")).isFalse();
    assertThat(
            send("GET", "/v1/executions?tool=create_ticket", null, "Bearer " + TOKEN)
                .json()
                .path("items")
                .size())
        .as("nothing was recorded")
        .isZero();

    String action = pendingAfterOn(title);
    send("POST", "/v1/writes", "{\"enabled\":false}", "Bearer " + TOKEN);
    Reply refused = send("POST", "/v1/actions/" + action + "/confirm", "{}", ALICE);
    assertThat(refused.status()).as(refused.body()).isEqualTo(409);
    assertThat(refused.json().path("error").path("code").asText()).isEqualTo("MCP_WRITE_DISABLED");
    assertThat(state(action)).isEqualTo("pending_confirmation");
    assertThat(upstream.sideEffects(title)).isZero();

    Reply noToken = send("POST", "/v1/writes", "{\"enabled\":true}", null);
    assertThat(noToken.status()).isEqualTo(401);
    Reply bad = send("POST", "/v1/writes", "{\"enabled\":\"yes\"}", "Bearer " + TOKEN);
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().path("error").path("message").asText()).contains("enabled");
    // Each accepted change is a control entry in the audit chain; the refused ones are not.
    Poll.until(
        WAIT,
        () -> activity().lines().filter(l -> l.contains("\"type\":\"control\"")).count() == 3,
        this::activity);
    assertThat(activity())
        .contains("\"event\":\"write_switch\"")
        .contains("\"position\":\"off\"")
        .contains("\"position\":\"on\"");
  }

  /** The audit activity journal of the sidecar's journal store, as it now stands. */
  private String activity() {
    try {
      return Files.readString(dir.resolve("journal").resolve("audit").resolve("activity.jsonl"));
    } catch (java.io.IOException e) {
      return "";
    }
  }

  @Test
  void toolsListShowsWriteToolsOnlyToCallersTheSwitchLetsWrite() throws Exception {
    assertThat(listed(ALICE)).containsExactlyInAnyOrder("create_ticket", "keyed_ticket");
    send("POST", "/v1/writes", "{\"enabled\":false}", "Bearer " + TOKEN);
    assertThat(listed(ALICE)).as("the next call sees the switch").isEmpty();
    assertThat(pending(bob, "list-" + UUID.randomUUID())).as("hidden: an unknown tool").isEmpty();
    send("POST", "/v1/writes", "{\"enabled\":true}", "Bearer " + TOKEN);
    String aliceActor = actorOf(pending(alice, "list-a-" + UUID.randomUUID()));
    send("POST", "/v1/writes", "{\"enabled\":false}", "Bearer " + TOKEN);
    Reply on =
        send(
            "POST",
            "/v1/writes",
            "{\"actor\":\"" + aliceActor + "\",\"enabled\":true}",
            "Bearer " + TOKEN);
    assertThat(on.status()).as(on.body()).isEqualTo(200);
    assertThat(listed(ALICE)).containsExactlyInAnyOrder("create_ticket", "keyed_ticket");
    assertThat(listed(BOB)).isEmpty();
  }

  private List<String> listed(String authorization) throws Exception {
    HttpRequest req =
        HttpRequest.newBuilder(mcp)
            .timeout(WAIT)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-11-25")
            .header("Authorization", authorization)
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}"))
            .build();
    HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
    String body = r.body();
    if (body.startsWith("event:") || body.startsWith("data:") || body.startsWith("id:")) {
      for (String line : body.split("\r?\n")) {
        if (line.startsWith("data:") && line.contains("\"tools\"")) {
          body = line.substring(5).trim();
        }
      }
    }
    JsonNode m = McpClient.JSON.readTree(body);
    assertThat(m.path("result").path("tools").isArray()).as(r.body()).isTrue();
    return m.path("result").path("tools").findValuesAsText("name");
  }

  /** The actor of the pending call {@code id}, or "" when there is none (the call was hidden). */
  private String actorOf(String id) throws Exception {
    return id.isEmpty()
        ? ""
        : send("GET", "/v1/executions/" + id, null, "Bearer " + TOKEN)
            .json()
            .path("actor")
            .asText();
  }

  private String pendingAfterOn(String title) throws Exception {
    send("POST", "/v1/writes", "{\"enabled\":true}", "Bearer " + TOKEN);
    return pending(alice, title);
  }

  // ---- helpers ---------------------------------------------------------------------------------

  record Reply(int status, String body, JsonNode json) {}

  private String pending(McpClient agent, String title) throws Exception {
    McpClient.Answer a = agent.call(mcp, 1, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    if (a.message().path("error").path("code").asInt() == -32602) {
      return "";
    }
    String id = a.result().path("structuredContent").path("actionId").asText();
    assertThat(id).as(a.body()).startsWith("act_");
    return id;
  }

  private String state(String id) throws Exception {
    return send("GET", "/v1/executions/" + id, null, "Bearer " + TOKEN)
        .json()
        .path("state")
        .asText();
  }

  private Reply send(String method, String path, String body, String authorization)
      throws IOException, InterruptedException {
    return sendTyped(method, path, body, authorization, "application/json");
  }

  private Reply sendTyped(
      String method, String path, String body, String authorization, String type)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(tally.admin(path)).timeout(WAIT);
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    if (body != null) {
      b.header("Content-Type", type).method(method, HttpRequest.BodyPublishers.ofString(body));
    } else {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    }
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    JsonNode json =
        r.body().isBlank()
            ? JsonNodeFactory.instance.objectNode()
            : McpClient.JSON.readTree(r.body());
    return new Reply(r.statusCode(), r.body(), json);
  }
}
