package dev.tally.sidecar.demo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.sidecar.app.SidecarSettings;
import dev.tally.sidecar.app.TallyServer;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code tally demo}: a demo MCP server with a side-effect counter, Tally in front on the embedded
 * journal store, and a scripted agent that loses a response and retries. Prints each step; returns
 * normally only if Tally behaved (one side effect per intended action), else throws.
 */
public final class Demo {
  private static final Set<String> SETTLED =
      Set.of("completed_not_delivered", "delivered", "completed");

  private final PrintStream out;

  public Demo(PrintStream out) {
    this.out = out;
  }

  /** Runs the whole demo in a fresh temporary directory that is removed afterwards. */
  public void run() throws Exception {
    Path dir = Files.createTempDirectory("tally-demo-");
    Vertx vertx = Vertx.vertx();
    DemoMcpServer upstream = null;
    TallyServer tally = null;
    try {
      upstream =
          DemoMcpServer.start(vertx, 0, Duration.ofMillis(400))
              .toCompletionStage()
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS);
      String yaml =
          "upstream:\n  url: http://127.0.0.1:"
              + upstream.port()
              + "/mcp\n"
              + "sidecar:\n  listen: 127.0.0.1:0\n"
              + "admin:\n  listen: 127.0.0.1:0\n"
              + "store: journal:"
              + dir.resolve("journal")
              + "\n"
              + "hmac:\n  keyFile: "
              + dir.resolve("hmac.keys")
              + "\n"
              + "writes:\n  enabled: true\n"
              + "tools:\n  close_ticket:\n    confirmationRequired: true\n";
      dev.tally.core.fingerprint.KeyFiles.generate(dir.resolve("hmac.keys"), Clock.systemUTC());
      TallyConfig cfg = TallyConfig.parse(yaml, "demo configuration", ConfigOverrides.none());
      SidecarSettings settings = SidecarSettings.from(cfg, ConfigOverrides.ofEnv(Map.of()));
      tally = TallyServer.start(cfg, settings, Clock.systemUTC(), line -> {});
      URI mcp = URI.create("http://127.0.0.1:" + tally.mcpPort() + "/mcp");
      URI admin = URI.create("http://127.0.0.1:" + tally.adminPort() + "/");
      script(upstream, mcp, admin, dir);
    } finally {
      if (tally != null) {
        tally.stop();
      }
      if (upstream != null) {
        upstream.close();
      }
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      deleteTree(dir);
    }
  }

  private void script(DemoMcpServer upstream, URI mcp, URI admin, Path dir) throws Exception {
    out.println("Tally demo: an MCP server whose create_ticket tool counts its side effects,");
    out.println("with Tally in front of it on the embedded journal store.");
    out.println("  MCP server:    http://127.0.0.1:" + upstream.port() + "/mcp");
    out.println("  Tally sidecar: " + mcp + "   (admin " + admin + ")");
    out.println("  store:         journal:" + dir.resolve("journal"));
    out.println();
    DemoClient agent = new DemoClient(mcp, admin);
    agent.initialize();

    out.println("1. The agent calls create_ticket {\"title\":\"Printer on fire\"}.");
    JsonNode r1 = agent.call(10, "create_ticket", "{\"title\":\"Printer on fire\"}");
    String e1 = r1.at("/result/structuredContent/executionId").asText();
    out.println(
        "   -> "
            + r1.at("/result/content/0/text").asText()
            + "; execution "
            + e1
            + " is "
            + settle(agent, e1)
            + "; server side effects: "
            + upstream.sideEffects());
    out.println(
        "      (the server received Idempotency-Key: " + upstream.lastIdempotencyKey() + ")");
    expect(upstream.sideEffects() == 1, "one ticket after step 1");

    out.println(
        "2. The agent calls create_ticket {\"title\":\"Printer still on fire\"} (JSON-RPC id 11),");
    out.println("   and the connection dies right after the request was sent.");
    agent.callAndCut(11, "create_ticket", "{\"title\":\"Printer still on fire\"}");
    String e2 = awaitExecution(upstream, e1);
    String s2 = settle(agent, e2);
    out.println(
        "   -> the agent saw nothing. Tally kept reading the server's answer: execution "
            + e2
            + " is "
            + s2
            + "; server side effects: "
            + upstream.sideEffects());
    expect(upstream.sideEffects() == 2, "two tickets after step 2");

    out.println("3. The agent retries the same call with a new JSON-RPC id (12).");
    JsonNode r3 = agent.call(12, "create_ticket", "{\"title\":\"Printer still on fire\"}");
    JsonNode replay = r3.at("/result/_meta/dev.tally~1replay");
    out.println(
        "   -> "
            + r3.at("/result/content/0/text").asText()
            + " (replayed from execution "
            + replay.path("executionId").asText("?")
            + ", not executed again); server side effects: "
            + upstream.sideEffects());
    expect(replay.path("executionId").asText("").equals(e2), "step 3 is a replay of step 2");
    expect(upstream.sideEffects() == 2, "still two tickets after the retry");

    out.println("4. The agent really wants a second ticket with that title and says so with a new");
    out.println("   idempotency key (\"second-ticket\").");
    JsonNode r4 =
        agent.call(
            13,
            "create_ticket",
            "{\"title\":\"Printer still on fire\",\"idempotencyKey\":\"second-ticket\"}");
    String e4 = r4.at("/result/structuredContent/executionId").asText();
    out.println(
        "   -> "
            + r4.at("/result/content/0/text").asText()
            + "; new execution "
            + e4
            + " is "
            + settle(agent, e4)
            + "; server side effects: "
            + upstream.sideEffects());
    expect(
        upstream.sideEffects() == 3 && !e4.equals(e2),
        "a third ticket for the deliberate second call");

    out.println(
        "5. The agent calls close_ticket {\"ticket\":\"T-1\"}, a tool a person must confirm.");
    JsonNode r5 = agent.call(14, "close_ticket", "{\"ticket\":\"T-1\"}");
    JsonNode pending = r5.at("/result/structuredContent");
    String e5 = pending.path("actionId").asText();
    out.println(
        "   -> "
            + pending.path("status").asText("?")
            + ": nothing was done yet; server side effects: "
            + upstream.sideEffects());
    out.println(
        "      confirm at "
            + pending.path("confirmUrl").asText()
            + " before "
            + pending.path("expiresAt").asText());
    expect(
        "pending_confirmation".equals(pending.path("status").asText())
            && upstream.sideEffects() == 3,
        "step 5 waits for its person");
    out.println(
        "   The person confirms through the console's API (POST /v1/actions/" + e5 + "/confirm).");
    JsonNode confirmed = agent.confirm(e5);
    out.println(
        "   -> Tally ran the call itself: execution "
            + e5
            + " is "
            + confirmed.path("state").asText("?")
            + " (\""
            + confirmed.at("/result/content/0/text").asText("?")
            + "\"); server side effects: "
            + upstream.sideEffects()
            + ", Idempotency-Key "
            + upstream.lastIdempotencyKey());
    expect(
        upstream.sideEffects() == 4 && e5.equals(upstream.lastIdempotencyKey()),
        "the confirmed call ran once, under its own execution id");
    JsonNode r6 = agent.call(15, "close_ticket", "{\"ticket\":\"T-1\"}");
    out.println(
        "   The agent retries: "
            + r6.at("/result/content/0/text").asText()
            + " (replayed from "
            + r6.at("/result/_meta/dev.tally~1replay/executionId").asText("?")
            + "); server side effects: "
            + upstream.sideEffects());
    expect(upstream.sideEffects() == 4, "the retry of the confirmed call is a replay");

    out.println();
    out.println(
        "Result: 4 intended actions, 4 side effects. Without Tally the retry in step 3 would");
    out.println("have created a duplicate ticket, and close_ticket would have run unconfirmed.");
  }

  /** Waits until the server saw a write call with an execution id other than {@code previous}. */
  private static String awaitExecution(DemoMcpServer upstream, String previous)
      throws InterruptedException {
    for (int i = 0; i < 500; i++) {
      String id = upstream.lastExecutionId();
      if (id != null && !id.equals(previous)) {
        return id;
      }
      Thread.sleep(10);
    }
    throw new IllegalStateException("the cut call never reached the server");
  }

  /** Polls the admin API until the execution settled; returns its state. */
  private static String settle(DemoClient agent, String id)
      throws IOException, InterruptedException {
    String state = "?";
    for (int i = 0; i < 500; i++) {
      state = agent.execution(id).path("state").asText("?");
      if (SETTLED.contains(state) && !state.equals("completed")) {
        return state;
      }
      Thread.sleep(10);
    }
    return state;
  }

  private static void expect(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("demo check failed: " + what);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
