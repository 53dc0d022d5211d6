package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.sidecar.app.SidecarSettings;
import dev.tally.sidecar.app.TallyServer;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18, 2026-07-28 era, through the sidecar with the real TypeScript SDK v2 client ({@code
 * @modelcontextprotocol/client} 2.4.0, pinned by {@code src/test/node-elicit/package-lock.json}):
 * the client declares URL-mode elicitation, so the call of a {@code confirmationRequired} tool is
 * answered with an input-required result whose URL elicitation carries the confirm link; the
 * fixture's elicitation handler confirms on the actions API as the person would and accepts; the
 * SDK's own re-send (new request id, {@code inputResponses}, the exact {@code requestState}) gets
 * the executed result. The upstream sees exactly one call, Tally's, under the action's id.
 *
 * <p>Needs Node.js ≥ 20 and npm (skipped without, unless {@code CI} is set).
 */
class SidecarConfirmElicitationIT {
  private static final Duration NPM_TIMEOUT = Duration.ofMinutes(5);
  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(90);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ADMIN_TOKEN = "admin-token-0123456789abcdef-0123456789";
  private static final String ALICE = "alice-token-0123456789";

  private static NodeProject.Runtime runtime;
  private static String skipped;

  @TempDir Path dir;
  private NodeProject node;
  private Vertx vertx;
  private ModernUpstream upstream;
  private TallyServer tally;
  private final List<String> log = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void findNode() {
    NodeProject.Availability a =
        NodeProject.require(
            "SidecarConfirmElicitationIT", "the TypeScript SDK v2 elicitation test");
    skipped = a.skipped();
    runtime = a.runtime();
    if (skipped == null && runtime.major() < 20) {
      String ci = System.getenv("CI");
      String why = "@modelcontextprotocol/client 2.4 needs Node.js 20, found " + runtime.version();
      if (ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false")) {
        throw new AssertionError(why + ", and CI is set: this test must run in CI");
      }
      skipped = "SidecarConfirmElicitationIT skipped: " + why;
      System.err.println(skipped);
    }
  }

  @BeforeEach
  void start() throws Exception {
    Assumptions.assumeTrue(skipped == null, skipped);
    Path base = Path.of(System.getProperty("user.dir"));
    node =
        NodeProject.install(
            runtime,
            base.resolve("src/test/node-elicit"),
            base.resolve("target/ts-elicit"),
            NPM_TIMEOUT);
    vertx = Vertx.vertx();
    upstream = new ModernUpstream(vertx);
    Path token = dir.resolve("admin.token");
    Files.writeString(token, ADMIN_TOKEN + "\n");
    String yaml =
        "upstream:\n  url: "
            + upstream.url()
            + "\nsidecar:\n  listen: 127.0.0.1:0\nstore: memory\n"
            + "admin:\n  listen: 127.0.0.1:0\n  tokenFile: "
            + token
            + "\ntools:\n  deploy:\n    confirmationRequired: true\n";
    TallyConfig cfg = TallyConfig.parse(yaml, "test configuration", ConfigOverrides.none());
    tally =
        TallyServer.start(
            cfg,
            SidecarSettings.from(cfg, ConfigOverrides.ofEnv(Map.of())),
            Clock.systemUTC(),
            log::add);
  }

  @AfterEach
  void stop() throws Exception {
    try {
      if (node != null) {
        node.close();
      }
      if (tally != null) {
        tally.stop();
      }
    } finally {
      if (vertx != null) {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
    }
    String all = String.join("\n", log);
    assertThat(all).doesNotContain(ADMIN_TOKEN).doesNotContain(ALICE);
  }

  @Test
  void theSdkClientConfirmsThroughTheElicitationAndItsResendGetsTheExecutedResult()
      throws Exception {
    String mcp = "http://127.0.0.1:" + tally.mcpPort() + "/mcp";
    String admin = "http://127.0.0.1:" + tally.adminPort();
    NodeProject.Child client = node.start("confirm.mjs", mcp, admin, ALICE);
    String line = client.awaitLine("RESULT ", CLIENT_TIMEOUT);
    System.err.println("SidecarConfirmElicitationIT: " + line);
    JsonNode report = JSON.readTree(line.substring("RESULT ".length()));
    assertThat(client.awaitExit(Duration.ofSeconds(10)))
        .as("confirm.mjs exit code; report %s; stderr:%n%s", report, client.stderr())
        .isZero();
    assertThat(report.path("ok").asBoolean()).as(report.toString()).isTrue();
    assertThat(report.path("sdk").asText()).isEqualTo("2.4.0");

    // The one elicitation: URL mode, the confirm link, the summary as its message.
    JsonNode asked = report.path("elicitations");
    assertThat(asked.size()).as(report.toString()).isOne();
    JsonNode e = asked.get(0);
    assertThat(e.path("mode").asText()).isEqualTo("url");
    String action = e.path("actionId").asText();
    assertThat(action).startsWith("act_");
    assertThat(e.path("url").asText()).isEqualTo(admin + "/console/actions/" + action);
    assertThat(e.path("message").asText()).contains("Nothing was done yet").contains(action);
    assertThat(e.path("confirmStatus").asInt()).as(e.toString()).isEqualTo(200);
    assertThat(e.path("confirm").path("decision").asText()).isEqualTo("confirmed");

    // The SDK's re-send: a new request id, the answer and Tally's state echoed.
    List<JsonNode> calls = new ArrayList<>();
    report
        .path("posts")
        .forEach(
            p -> {
              if (p.path("method").asText().equals("tools/call")) {
                calls.add(p);
              }
            });
    assertThat(calls).as(report.toString()).hasSize(2);
    assertThat(calls.get(0).path("hasRequestState").asBoolean()).isFalse();
    assertThat(calls.get(0).path("urlMode").asBoolean()).isTrue();
    assertThat(calls.get(1).path("id")).isNotEqualTo(calls.get(0).path("id"));
    assertThat(calls.get(1).path("requestStatePrefix").asText()).isEqualTo("tally1.");
    // Answered under the inputRequests key Tally chose: the action id.
    assertThat(calls.get(1).path("inputResponses").path(action).path("action").asText())
        .isEqualTo("accept");
    assertThat(calls.get(1).path("inputResponses").size()).isOne();

    // The executed result, marked as Tally's replay of the action.
    JsonNode result = report.path("result");
    assertThat(result.path("content").path(0).path("text").asText())
        .as(result.toString())
        .isEqualTo("deployed");
    assertThat(result.path("_meta").path("dev.tally/replay").path("executionId").asText())
        .isEqualTo(action);

    // The upstream saw exactly one call: the one Tally dispatched at the confirmation.
    assertThat(upstream.effects.get()).isOne();
    assertThat(upstream.idempotencyKeys).containsExactly(action);
    assertThat(
            tally
                .store()
                .find(new ExecutionId(action))
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS)
                .orElseThrow()
                .state())
        .isIn(ExecutionState.DELIVERED, ExecutionState.COMPLETED_NOT_DELIVERED);
  }

  @Test
  void aDeclinedElicitationLeavesTheActionPendingAndTheSdkGetsThePendingToolResult()
      throws Exception {
    String mcp = "http://127.0.0.1:" + tally.mcpPort() + "/mcp";
    String admin = "http://127.0.0.1:" + tally.adminPort();
    NodeProject.Child client = node.start("confirm.mjs", mcp, admin, ALICE, "decline");
    String line = client.awaitLine("RESULT ", CLIENT_TIMEOUT);
    System.err.println("SidecarConfirmElicitationIT: " + line);
    JsonNode report = JSON.readTree(line.substring("RESULT ".length()));
    assertThat(client.awaitExit(Duration.ofSeconds(10)))
        .as("confirm.mjs exit code; report %s; stderr:%n%s", report, client.stderr())
        .isZero();
    assertThat(report.path("elicitations").size()).as(report.toString()).isOne();
    String action = report.path("elicitations").get(0).path("actionId").asText();
    // The SDK accepted Tally's own tool result in this era (it carries resultType).
    JsonNode sc = report.path("result").path("structuredContent");
    assertThat(sc.path("status").asText()).as(report.toString()).isEqualTo("pending_confirmation");
    assertThat(sc.path("actionId").asText()).isEqualTo(action);
    assertThat(upstream.effects.get()).isZero();
    assertThat(upstream.idempotencyKeys).isEmpty();
    assertThat(
            tally
                .store()
                .find(new ExecutionId(action))
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS)
                .orElseThrow()
                .state())
        .isEqualTo(ExecutionState.PENDING_CONFIRMATION);
  }
}
