package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.gate.Gate;
import dev.tally.sidecar.SidecarOptions;
import dev.tally.sidecar.it.ConformanceComparison.Pair;
import dev.tally.sidecar.it.ConformanceSuite.Check;
import dev.tally.sidecar.it.ConformanceSuite.Run;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The official MCP conformance suite ({@code @modelcontextprotocol/conformance} {@value
 * ConformanceSuite#VERSION}, server mode, all 32 scenarios) against an "everything" server on the
 * TypeScript SDK ({@code src/test/conformance/everything-server.mjs}), once directly and once
 * through the sidecar (real {@link Gate} over the memory store): every check that passes directly
 * must pass through the sidecar, except the documented {@link #BY_DESIGN} differences.
 *
 * <p>Each variant runs the server with and without an SSE event store (the sidecar keeps its own
 * stream history either way), and the sidecar with contracts learned from the server's annotations
 * (its pure reads pass through ungated), with every tool configured {@code irreversible}
 * (configuration wins over annotations, ARCHITECTURE.md §4), so every {@code tools/call} — text,
 * image, audio, embedded resources, errors, logging and progress notifications, sampling and
 * elicitation requests on the call's stream — crosses the gate, or with every tool configured
 * {@code read_only}, so none does. The suite calls each tool once, in its own session; each sidecar
 * run gets a fresh store, so no call is a retry of another and every gated call must be a first
 * execution: the server's books prove it.
 *
 * <p>CLI {@value ConformanceSuite#VERSION} probes SSE polling at protocol version 2025-03-26, where
 * SDK servers neither prime nor close a stream; {@code reconnect-probe.mjs} does what that scenario
 * means with the SDK client at 2025-11-25: the server closes the call's stream mid-call and the
 * answer must still arrive.
 *
 * <p>Needs npm on {@code PATH} and the npm registry for the first {@code npm ci} (the project
 * brings its own Node.js 22, which the CLI needs). Without Node the test is skipped, saying so,
 * unless the {@code CI} environment variable is set: then it fails.
 */
class SidecarConformanceIT {
  private static final Duration NPM_TIMEOUT = Duration.ofMinutes(5);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration SUITE_TIMEOUT = Duration.ofMinutes(3);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Every scenario of the suite in server mode ({@code conformance list}). */
  static final Set<String> SCENARIOS =
      Set.of(
          "server-initialize",
          "logging-set-level",
          "ping",
          "completion-complete",
          "tools-list",
          "tools-call-simple-text",
          "tools-call-image",
          "tools-call-audio",
          "tools-call-embedded-resource",
          "tools-call-mixed-content",
          "tools-call-with-logging",
          "tools-call-error",
          "tools-call-with-progress",
          "tools-call-sampling",
          "tools-call-elicitation",
          "json-schema-2020-12",
          "elicitation-sep1034-defaults",
          "server-sse-polling",
          "server-sse-multiple-streams",
          "elicitation-sep1330-enums",
          "resources-list",
          "resources-read-text",
          "resources-read-binary",
          "resources-templates-read",
          "resources-subscribe",
          "resources-unsubscribe",
          "prompts-list",
          "prompts-get-simple",
          "prompts-get-with-args",
          "prompts-get-embedded-resource",
          "prompts-get-with-image",
          "dns-rebinding-protection");

  /**
   * Verdicts other than SUCCESS in a direct run of the event-store and no-event-store servers, with
   * the reason ({@code scenario/check}); the {@link ServerKind#PRIMING} server passes every check
   * directly. Asserted to be exactly these, so the list cannot rot.
   */
  static final Map<String, String> NOT_PASSING_DIRECTLY =
      Map.of(
          "server-sse-polling/server-sse-priming-event",
          "WARNING: CLI 0.1.16 sends MCP-Protocol-Version 2025-03-26 on its raw SSE probe, so the"
              + " SDK sends no priming event (MCP-NOTES.md; fixed upstream later)",
          "server-sse-polling/server-sse-retry-field",
          "WARNING: the retry field travels with the priming event the SDK does not send there");

  /**
   * Checks that pass directly and not through the sidecar because Tally means it so, with the
   * reason ({@code scenario/check}). None so far.
   */
  static final Map<String, String> BY_DESIGN = Map.of();

  /** Tools the everything server annotates {@code readOnlyHint: true}. */
  static final Set<String> READ_ONLY_TOOLS =
      Set.of(
          "test_simple_text",
          "test_image_content",
          "test_audio_content",
          "test_embedded_resource",
          "test_multiple_content_types",
          "json_schema_2020_12_tool");

  /** Tools the suite calls, each once (in one scenario each). */
  static final Set<String> CALLED_TOOLS =
      Set.of(
          "test_simple_text",
          "test_image_content",
          "test_audio_content",
          "test_embedded_resource",
          "test_multiple_content_types",
          "test_tool_with_logging",
          "test_tool_with_progress",
          "test_error_handling",
          "test_reconnection",
          "test_sampling",
          "test_elicitation",
          "test_elicitation_sep1034_defaults",
          "test_elicitation_sep1330_enums");

  /** The everything server with or without SSE history of its own. */
  enum ServerKind {
    EVENT_STORE(),
    NO_EVENT_STORE("--no-event-store"),
    /**
     * Priming events and {@code retry:} on every POST stream, and the reconnection tool closing its
     * stream mid-call, for every client: the polling server the suite's SSE scenario is written
     * for.
     */
    PRIMING("--prime-every-version");

    final String[] args;

    ServerKind(String... args) {
      this.args = args;
    }
  }

  /** Where the sidecar's tool contracts come from. */
  enum Contracts {
    /** Learned from the server's annotations in {@code tools/list}: pure reads pass through. */
    ANNOTATED,
    /** Every tool configured {@code irreversible}: every call crosses the gate. */
    ALL_GATED,
    /** Every tool configured {@code read_only}: every call passes straight through. */
    ALL_READ_ONLY
  }

  private static NodeProject.Runtime runtime;
  private static String skipped;
  private static Path base;
  private static final Map<ServerKind, Run> DIRECT = new EnumMap<>(ServerKind.class);

  private NodeProject node;
  private ConformanceSuite suite;
  private Vertx vertx;
  private GatedSidecar gated;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void findNode() {
    NodeProject.Availability node =
        NodeProject.require("SidecarConformanceIT", "the conformance suite");
    skipped = node.skipped();
    if (skipped != null) {
      return;
    }
    runtime = node.runtime();
    base = Path.of(System.getProperty("user.dir"));
  }

  @BeforeEach
  void install() throws Exception {
    // Aborting here, not in @BeforeAll, makes each test count as skipped in the report.
    Assumptions.assumeTrue(skipped == null, skipped);
    long t0 = System.nanoTime();
    node =
        NodeProject.install(
            runtime,
            base.resolve("src/test/conformance"),
            base.resolve("target/conformance"),
            NPM_TIMEOUT);
    suite = ConformanceSuite.of(node);
    log("Node.js %s on PATH, project ready in %d ms", runtime.version(), millisSince(t0));
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
    DIRECT.clear();
  }

  static Stream<Arguments> deployments() {
    return Stream.of(ServerKind.values())
        .flatMap(k -> Stream.of(Contracts.values()).map(c -> Arguments.of(k, c)));
  }

  @ParameterizedTest(name = "{0} server, {1} contracts")
  @MethodSource("deployments")
  void everyCheckThatPassesDirectlyPassesThroughTheSidecar(ServerKind kind, Contracts contracts)
      throws Exception {
    Run direct = direct(kind);

    String upstream = startServer(kind);
    String url = startSidecar(upstream, contracts);
    Run via = run("sidecar-" + kind + "-" + contracts, url);

    ConformanceComparison cmp = ConformanceComparison.of(direct, via);
    log("%s server, %s contracts:%n%s", kind, contracts, cmp.table());
    assertThat(via.scenarios().keySet()).as("scenarios through the sidecar").isEqualTo(SCENARIOS);
    List<Pair> regressions = cmp.regressions();
    assertThat(regressions.stream().map(Pair::key).toList())
        .as(
            "checks worse through the sidecar than directly (not in BY_DESIGN): %s%n%s%nCLI"
                + " output:%n%s",
            regressions, details(via, regressions), via.output())
        .allMatch(BY_DESIGN::containsKey);

    // The server's books: each tool ran once behind the sidecar; gated calls carried an execution
    // id, and each of those executions was delivered (a first execution, not a replay).
    JsonNode books = books(upstream);
    Set<String> gated = gated(contracts);
    for (String tool : CALLED_TOOLS) {
      assertThat(books.path("calls").path(tool).asInt()).as("runs of %s", tool).isEqualTo(1);
      JsonNode id = books.path("executionIds").path(tool).path(0);
      if (!gated.contains(tool)) {
        assertThat(id.isNull()).as("%s passes through ungated: %s", tool, id).isTrue();
        continue;
      }
      assertThat(id.asText()).as("execution id of %s", tool).startsWith("act_");
      // A tool that answers isError: true failed on its first attempt and released its intent
      // (releaseOnError, the default); every other one was delivered.
      ExecutionState want = ERROR_TOOLS.contains(tool) ? ExecutionState.FAILED : DELIVERED;
      assertThat(state(id.asText(), want)).as("state of %s's execution", tool).hasValue(want);
    }
  }

  @ParameterizedTest(name = "{0} contracts")
  @EnumSource(
      value = Contracts.class,
      names = {"ANNOTATED", "ALL_READ_ONLY"})
  void aToolCallWhoseStreamTheServerClosesResumesThroughTheSidecar(Contracts contracts)
      throws Exception {
    // server-sse-polling as it is meant (SEP-1699), at the SDK client's own protocol version: the
    // server primes its POST stream, closes it mid-call, and answers on the client's resumption.
    // Through the sidecar the sidecar resumes upstream itself, gated call or not.
    JsonNode direct = probe(startServer(ServerKind.EVENT_STORE));
    assertThat(direct.path("ok").asBoolean()).as("directly: %s", direct).isTrue();
    assertThat(direct.path("text").asText()).endsWith("(stream closed mid-call: true)");
    assertThat(direct.path("requests").toString()).contains("\"lastEventId\":\"");

    String upstream = startServer(ServerKind.EVENT_STORE);
    JsonNode via = probe(startSidecar(upstream, contracts));
    assertThat(via.path("ok").asBoolean()).as("through the sidecar: %s", via).isTrue();
    assertThat(via.path("text").asText()).endsWith("(stream closed mid-call: true)");
    JsonNode books = books(upstream);
    assertThat(books.path("calls").path("test_reconnection").asInt()).isEqualTo(1);
    JsonNode id = books.path("executionIds").path("test_reconnection").path(0);
    if (gated(contracts).contains("test_reconnection")) {
      assertThat(state(id.asText(), DELIVERED)).as("state of execution %s", id).hasValue(DELIVERED);
    } else {
      assertThat(id.isNull()).as("ungated: %s", id).isTrue();
    }
  }

  private static final ExecutionState DELIVERED = ExecutionState.DELIVERED;

  /** The called tools whose answer is a result with {@code isError: true}. */
  private static final Set<String> ERROR_TOOLS = Set.of("test_error_handling");

  /** The tools the suite calls that cross the gate under {@code contracts}. */
  private static Set<String> gated(Contracts contracts) {
    Set<String> gated = new HashSet<>(CALLED_TOOLS);
    if (contracts == Contracts.ANNOTATED) {
      gated.removeAll(READ_ONLY_TOOLS);
    } else if (contracts == Contracts.ALL_READ_ONLY) {
      gated.clear();
    }
    return gated;
  }

  /** The direct run against a fresh server of {@code kind}, once per test class. */
  private Run direct(ServerKind kind) throws Exception {
    Run r = DIRECT.get(kind);
    if (r == null) {
      r = run("direct-" + kind, startServer(kind));
      Map<String, String> notPassing = new TreeMap<>();
      r.scenarios()
          .forEach(
              (s, checks) ->
                  checks.stream()
                      .filter(c -> c.isVerdict() && !c.status().equals("SUCCESS"))
                      .forEach(c -> notPassing.put(s + "/" + c.id(), c.status())));
      assertThat(r.scenarios().keySet()).as("scenarios run directly").isEqualTo(SCENARIOS);
      assertThat(notPassing.keySet())
          .as("verdicts other than SUCCESS directly (%s); CLI output:%n%s", notPassing, r.output())
          .isEqualTo(kind == ServerKind.PRIMING ? Set.of() : NOT_PASSING_DIRECTLY.keySet());
      DIRECT.put(kind, r);
    }
    return r;
  }

  private Run run(String label, String url) throws Exception {
    Path out = base.resolve("target/conformance-results").resolve(label);
    deleteTree(out);
    long t0 = System.nanoTime();
    Run r = suite.runAll(label, url, out, SUITE_TIMEOUT);
    log(
        "%s: %d scenarios in %d ms (exit %d)",
        label, r.scenarios().size(), millisSince(t0), r.exit());
    return r;
  }

  private static String details(Run run, List<Pair> pairs) {
    StringBuilder b = new StringBuilder();
    for (Pair p : pairs) {
      for (Check c : run.scenarios().getOrDefault(p.scenario(), List.of())) {
        if (c.id().equals(p.id())) {
          b.append(p.key()).append(": ").append(c.status()).append(' ');
          b.append(c.errorMessage()).append('\n');
        }
      }
    }
    return b.toString();
  }

  private String startServer(ServerKind kind) throws Exception {
    NodeProject.Child server = node.startWith(suite.node(), "everything-server.mjs", kind.args);
    JsonNode hello = JSON.readTree(server.awaitLine("{", START_TIMEOUT));
    assertThat(hello.path("eventStore").asBoolean()).isEqualTo(kind != ServerKind.NO_EVENT_STORE);
    return hello.path("url").asText();
  }

  private String startSidecar(String upstream, Contracts contracts) throws Exception {
    SidecarOptions options = SidecarOptions.builder(URI.create(upstream)).port(0).build();
    vertx = Vertx.vertx(options.toBuilder().eventLoops(2).build().vertxOptions());
    ToolClass configured =
        contracts == Contracts.ALL_GATED ? ToolClass.IRREVERSIBLE : ToolClass.READ_ONLY;
    ContractRegistry registry =
        contracts == Contracts.ANNOTATED
            ? ContractRegistry.defaults()
            : ContractRegistry.of(
                Stream.concat(CALLED_TOOLS.stream(), READ_ONLY_TOOLS.stream())
                    .distinct()
                    .collect(
                        Collectors.toMap(
                            t -> t,
                            t ->
                                ToolContract.of(t, configured, ToolContract.Source.CONFIGURATION))),
                ToolContract.defaultFor("default"));
    gated = GatedSidecar.start(vertx, options, registry, "conformance");
    return gated.url();
  }

  private JsonNode probe(String url) throws Exception {
    NodeProject.Child p = node.startWith(suite.node(), "reconnect-probe.mjs", url);
    String line = p.awaitLine("RESULT ", Duration.ofSeconds(30));
    log("reconnect probe at %s: %s", url, line);
    return JSON.readTree(line.substring("RESULT ".length()));
  }

  /** The execution's state once it is {@code want}, or its state after 10 s of waiting. */
  private Optional<ExecutionState> state(String executionId, ExecutionState want) throws Exception {
    return gated.awaitState(ExecutionId.parse(executionId), s -> s == want, Duration.ofSeconds(10));
  }

  private JsonNode books(String upstream) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(upstream).resolve("/control/calls"))
                .timeout(Duration.ofSeconds(10))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private static void deleteTree(Path dir) throws Exception {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
        Files.delete(p);
      }
    }
  }

  private static long millisSince(long t0) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }

  private static void log(String format, Object... args) {
    System.err.println("SidecarConformanceIT: " + String.format(Locale.ROOT, format, args));
  }
}
