package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.gate.Gate;
import dev.tally.sidecar.SidecarOptions;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Interop with the TypeScript MCP SDK ({@code @modelcontextprotocol/sdk}, pinned by {@code
 * src/test/node/package-lock.json}): an SDK server with no event store behind the sidecar (real
 * {@link Gate} over the memory store), SDK clients in front (MCP-NOTES.md, "TypeScript SDK 1.32").
 * The clients assert in JS ({@code client.mjs}: a cut call resumed, a re-sent call replayed, and a
 * control run without the sidecar; {@code standalone.mjs}: a GET stream reconnected without an
 * event id); this test checks their reports again, the server's own books and the store.
 *
 * <p>Needs Node.js ≥ 18 and npm on {@code PATH} and the npm registry for the first {@code npm ci}.
 * Without Node the test is skipped, saying so, unless the {@code CI} environment variable is set:
 * then it fails.
 */
class SidecarTypeScriptInteropIT {
  private static final Duration NPM_TIMEOUT = Duration.ofMinutes(5);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(90);
  private static final ObjectMapper JSON = new ObjectMapper();

  private static NodeProject.Runtime runtime;
  private static String skipped;
  private static Path sourceDir;
  private static Path workDir;

  private NodeProject node;
  private Vertx vertx;
  private GatedSidecar gated;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void findNode() {
    NodeProject.Availability node =
        NodeProject.require("SidecarTypeScriptInteropIT", "the TypeScript SDK interop test");
    skipped = node.skipped();
    if (skipped != null) {
      return;
    }
    runtime = node.runtime();
    Path base = Path.of(System.getProperty("user.dir"));
    sourceDir = base.resolve("src/test/node");
    workDir = base.resolve("target/ts-interop");
  }

  @BeforeEach
  void install() throws Exception {
    // Aborting here, not in @BeforeAll, makes each test count as skipped in the report.
    Assumptions.assumeTrue(skipped == null, skipped);
    long t0 = System.nanoTime();
    node = NodeProject.install(runtime, sourceDir, workDir, NPM_TIMEOUT);
    System.err.printf(
        Locale.ROOT,
        "SidecarTypeScriptInteropIT: Node %s, fixtures ready in %d ms%n",
        runtime.version(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
  }

  @AfterEach
  void stop() throws Exception {
    try {
      if (node != null) {
        node.close();
      }
    } finally {
      if (gated != null) {
        gated.close();
      }
      if (vertx != null) {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
    }
  }

  @AfterAll
  static void forget() {
    runtime = null;
    skipped = null;
  }

  @Test
  void cutCallResumesThroughTheSidecarAndAResentCallIsNotExecutedTwice() throws Exception {
    String upstream = startServer();
    String url = startSidecar(upstream);

    NodeProject.Child client = node.start("client.mjs", url, controlBase(upstream));
    JsonNode report = report(client);
    assertThat(client.awaitExit(Duration.ofSeconds(10)))
        .as("client.mjs exit code; report %s; stderr:%n%s", report, client.stderr())
        .isZero();
    assertThat(report.path("ok").asBoolean()).isTrue();
    assertThat(report.path("sdk").asText()).startsWith("1.32.");
    assertThat(report.path("protocolVersion").asText()).isEqualTo("2025-11-25");

    // (a) The cut POST stream was resumed with GET + Last-Event-ID and delivered the result.
    JsonNode a = report.path("a");
    assertThat(a.path("text").asText()).isEqualTo("ticket T-1 created: resumed");
    assertThat(a.path("replayMeta").isNull()).isTrue();
    String lastSeen = last(a.path("tokensAtCut"));
    assertThat(lastSeen).as("a sidecar event id before the cut").matches("[\\w-]{22}\\.\\d+");
    List<JsonNode> resumes = new ArrayList<>();
    a.path("requests")
        .forEach(
            r -> {
              if (r.path("method").asText().equals("GET") && r.has("lastEventId")) {
                resumes.add(r);
              }
            });
    assertThat(resumes).isNotEmpty();
    assertThat(resumes.get(0).path("lastEventId").asText()).isEqualTo(lastSeen);
    assertThat(resumes.get(0).path("status").asInt()).isEqualTo(200);
    assertThat(resumes.get(0).path("contentType").asText()).startsWith("text/event-stream");
    String stream = lastSeen.substring(0, lastSeen.indexOf('.') + 1);
    assertThat(last(a.path("tokens"))).startsWith(stream).isNotEqualTo(lastSeen);

    // (b) The abandoned call, re-sent with a new JSON-RPC id on another session, was replayed,
    // not executed again.
    JsonNode b = report.path("b");
    assertThat(b.path("lost").path("error").asText()).isNotEmpty();
    String retried = b.path("fromC").path("replayMeta").path("executionId").asText();
    assertThat(retried).isNotEmpty();
    assertThat(b.path("fromC").path("text").asText()).isEqualTo("ticket T-2 created: retried");
    assertThat(b.path("resentId")).isNotEqualTo(b.path("originalId"));
    assertThat(report.path("sideEffects").asInt()).isEqualTo(2);

    // The server's own books: two executions, each carrying Tally's execution id both ways.
    JsonNode effects = effects(upstream);
    assertThat(effects.path("sideEffects").asInt()).isEqualTo(2);
    List<String> keys = texts(effects.path("idempotencyKeys"));
    assertThat(keys).hasSize(2).doesNotHaveDuplicates().contains(retried);
    assertThat(texts(effects.path("executionIds"))).isEqualTo(keys);
    awaitState(keys.get(0), ExecutionState.DELIVERED);
    // The replay reached client C: the execution whose first answer was lost is now delivered.
    awaitState(retried, ExecutionState.DELIVERED);
  }

  @Test
  void withoutTheSidecarTheSameCutLosesTheResult() throws Exception {
    // The control experiment: the server keeps no event ids, so the SDK client cannot resume.
    String upstream = startServer();
    NodeProject.Child client = node.start("client.mjs", upstream, controlBase(upstream), "direct");
    JsonNode report = report(client);
    assertThat(client.awaitExit(Duration.ofSeconds(10)))
        .as("client.mjs exit code; report %s; stderr:%n%s", report, client.stderr())
        .isZero();
    assertThat(report.path("ok").asBoolean()).isTrue();
    assertThat(report.path("a").path("lost").asBoolean()).isTrue();
    assertThat(report.path("a").path("tokens")).isEmpty();
    assertThat(effects(upstream).path("sideEffects").asInt()).isEqualTo(1);
  }

  @Test
  void standaloneStreamDroppedWithoutAnEventIdIsReattachedNotRefused() throws Exception {
    // A client before 2025-11-25 gets no priming id, so it reconnects its GET stream without
    // Last-Event-ID. The TS server allows one GET stream per session and the sidecar still reads
    // the old one: forwarding the new GET would be refused with 409 until the old one expired.
    String upstream = startServer();
    String url = startSidecar(upstream);
    NodeProject.Child client = node.start("standalone.mjs", url, controlBase(upstream));
    JsonNode report = report(client);
    assertThat(client.awaitExit(Duration.ofSeconds(10)))
        .as("standalone.mjs exit code; report %s; stderr:%n%s", report, client.stderr())
        .isZero();
    assertThat(report.path("ok").asBoolean()).isTrue();
    JsonNode gets = report.path("gets");
    assertThat(gets.size()).isGreaterThanOrEqualTo(2);
    assertThat(gets.get(1).path("lastEventId").isNull()).isTrue();
    assertThat(gets.get(1).path("status").asInt()).isEqualTo(200);
    assertThat(report.path("notified").asBoolean()).isTrue();
  }

  @Test
  void aCallItsClientCancelledSettlesAtOnceAndItsRetryGetsTheUnknownOutcomePolicy()
      throws Exception {
    // Issue "The promise holds under real failures", case 6. The SDK client's own request timeout
    // (1.5 s) sends notifications/cancelled; the retry that follows at once must not be told
    // IDEMPOTENCY_IN_PROGRESS (the attach wait is 15 s here) nor wait for upstream.timeout (60 s).
    String upstream = startServer();
    SidecarOptions options =
        SidecarOptions.builder(URI.create(upstream))
            .port(0)
            .upstreamTimeout(Duration.ofSeconds(60))
            .upstreamCancelGrace(Duration.ofSeconds(2))
            .build();
    String url =
        startSidecar(
            options,
            TallyConfig.parse(
                    "tools:\n  default: {attachWait: 15s}\n  book_slot: {class: keyed}\n",
                    "test",
                    ConfigOverrides.none())
                .tools()
                .newRegistry());

    NodeProject.Child client = node.start("cancel.mjs", url);
    JsonNode report = report(client);
    assertThat(client.awaitExit(Duration.ofSeconds(10)))
        .as("cancel.mjs exit code; report %s; stderr:%n%s", report, client.stderr())
        .isZero();
    assertThat(report.path("ok").asBoolean()).isTrue();

    // (a) irreversible: recorded outcome_unknown once its client cancelled; sent upstream once.
    JsonNode irreversible = report.path("irreversible");
    assertThat(irreversible.path("retryTally").path("code").asText()).isEqualTo("OUTCOME_UNKNOWN");
    assertThat(irreversible.path("retryMs").asLong())
        .as("the retry waited for the cancellation's grace, not the timeout")
        .isLessThan(15_000);
    JsonNode effects = effects(upstream);
    assertThat(effects.path("sideEffects").asInt()).isOne();
    String ticket = effects.path("executionIds").path(0).asText();
    awaitState(ticket, ExecutionState.OUTCOME_UNKNOWN);

    // (b) keyed: the server aborted and booked nothing; the retry re-dispatched the same key.
    JsonNode receipts = effects.path("slotReceipts");
    assertThat(receipts.size()).isEqualTo(2);
    String key = receipts.path(0).path("key").asText();
    assertThat(key).startsWith("act_");
    assertThat(receipts.path(1).path("key").asText()).isEqualTo(key);
    assertThat(receipts.path(1).path("executionId").asText()).isEqualTo(key);
    assertThat(effects.path("bookings").path(key).asText()).isEqualTo("booked");
    assertThat(effects.path("bookings").size()).isOne();
    awaitState(key, ExecutionState.DELIVERED);
  }

  @Test
  void theSidecarListsATypeScriptServersToolsOnItsOwnSessionBeforeAnyClientDoes() throws Exception {
    // Issue case 9 against a real SDK server: sessions, SSE answers, annotations as the SDK sends
    // them. No client connects; the sidecar's own session is all there is.
    String upstream = startServer();
    startSidecar(
        SidecarOptions.builder(URI.create(upstream)).port(0).listTools(true).build(),
        ContractRegistry.defaults());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!(gated.gate.passesThrough("count_effects")
            && gated.gate.contracts().resolve("book_slot").toolClass() == ToolClass.KEYED)
        && System.nanoTime() < deadline) {
      Thread.sleep(20); // polling a condition: the listing at start
    }
    assertThat(gated.gate.passesThrough("count_effects")).as("readOnlyHint learned").isTrue();
    assertThat(gated.gate.contracts().resolve("book_slot").toolClass())
        .as("idempotentHint learned")
        .isEqualTo(ToolClass.KEYED);
    assertThat(gated.gate.contracts().resolve("create_ticket").toolClass())
        .isEqualTo(ToolClass.IRREVERSIBLE);
  }

  private String startServer() throws Exception {
    NodeProject.Child server = node.start("server.mjs");
    JsonNode hello = JSON.readTree(server.awaitLine("{", START_TIMEOUT));
    return hello.path("url").asText();
  }

  private String startSidecar(String upstream) throws Exception {
    return startSidecar(
        SidecarOptions.builder(URI.create(upstream)).port(0).build(), ContractRegistry.defaults());
  }

  private String startSidecar(SidecarOptions options, ContractRegistry contracts) throws Exception {
    vertx = Vertx.vertx(options.toBuilder().eventLoops(2).build().vertxOptions());
    gated = GatedSidecar.start(vertx, options, contracts, "ts-interop");
    return gated.url();
  }

  /** Waits (bounded, on store changes) until the execution is in {@code state}. */
  private void awaitState(String executionId, ExecutionState state) throws Exception {
    assertThat(
            gated.awaitState(
                ExecutionId.parse(executionId), s -> s == state, Duration.ofSeconds(10)))
        .as("execution %s", executionId)
        .hasValue(state);
  }

  private static String controlBase(String upstream) {
    return URI.create(upstream).resolve("/").toString();
  }

  private static JsonNode report(NodeProject.Child client) throws Exception {
    String line = client.awaitLine("RESULT ", CLIENT_TIMEOUT);
    System.err.println("SidecarTypeScriptInteropIT: " + line);
    return JSON.readTree(line.substring("RESULT ".length()));
  }

  private JsonNode effects(String upstream) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(upstream).resolve("/control/effects"))
                .timeout(Duration.ofSeconds(10))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private static String last(JsonNode array) {
    assertThat(array.isArray() && !array.isEmpty()).as("non-empty array: %s", array).isTrue();
    return array.get(array.size() - 1).asText();
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.isNull() ? null : n.asText()));
    return out;
  }
}
