package dev.tally.sidecar.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The official MCP conformance CLI ({@code @modelcontextprotocol/conformance}) as installed by the
 * {@code src/test/conformance} project, run in server mode on the Node.js 22 that project brings
 * with it (the CLI needs Node ≥ 22, CI may have an older one on {@code PATH}).
 *
 * <p>A run writes one {@code server-<scenario>-<timestamp>/checks.json} per scenario under its
 * output directory: a JSON array of checks, each with {@code id}, {@code name}, {@code
 * description}, {@code status} ({@code SUCCESS}, {@code FAILURE}, {@code WARNING}, {@code SKIPPED}
 * or {@code INFO}), {@code timestamp} and optionally {@code errorMessage} and {@code details}
 * (conformance {@code src/types.ts}). Ids are unique per scenario for verdicts; {@code INFO}
 * entries (logged requests and events) repeat.
 */
final class ConformanceSuite {
  /** The pinned CLI version (package.json and package-lock.json say the same). */
  static final String VERSION = "0.1.16";

  private static final String CLI = "node_modules/@modelcontextprotocol/conformance/dist/index.js";
  private static final Pattern RESULT_DIR =
      Pattern.compile("server-(.+)-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-\\d{3}Z");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final NodeProject project;
  private final Path node;

  private ConformanceSuite(NodeProject project, Path node) {
    this.project = project;
    this.node = node;
  }

  /**
   * The suite of an installed project: checks that the project's own {@code node} is Node.js ≥ 22
   * and that the installed CLI is {@link #VERSION}.
   */
  static ConformanceSuite of(NodeProject project) throws IOException {
    Path node = project.dir().resolve("node_modules/node/bin/node");
    String version =
        NodeProject.version(node)
            .orElseThrow(() -> new IllegalStateException(node + " does not run"));
    if (NodeProject.majorOf(version) < 22) {
      throw new IllegalStateException(node + " is Node.js " + version + ", the CLI needs >= 22");
    }
    JsonNode manifest =
        JSON.readTree(
            project
                .dir()
                .resolve("node_modules/@modelcontextprotocol/conformance/package.json")
                .toFile());
    if (!VERSION.equals(manifest.path("version").asText())) {
      throw new IllegalStateException(
          "installed conformance CLI is " + manifest.path("version") + ", expected " + VERSION);
    }
    return new ConformanceSuite(project, node);
  }

  /** The Node.js 22 executable the project installed. */
  Path node() {
    return node;
  }

  /** One check as the CLI recorded it. */
  record Check(String id, String status, String description, String errorMessage) {
    /** Whether this is a verdict, not a logged request or event ({@code INFO}). */
    boolean isVerdict() {
      return !"INFO".equals(status);
    }
  }

  /** A finished run: exit code, console output and the checks of every scenario, by name. */
  record Run(String label, int exit, String output, Map<String, List<Check>> scenarios) {}

  /**
   * Runs {@code conformance server --url url --suite all} into the empty directory {@code out};
   * destroys the CLI and fails after {@code timeout}.
   */
  Run runAll(String label, String url, Path out, Duration timeout) throws Exception {
    Files.createDirectories(out);
    try (Stream<Path> old = Files.list(out)) {
      if (old.findAny().isPresent()) {
        throw new IllegalStateException(out + " is not empty");
      }
    }
    NodeProject.Child cli =
        project.startWith(
            node, CLI, "server", "--url", url, "--suite", "all", "--output-dir", out.toString());
    int exit;
    try {
      exit = cli.awaitExit(timeout);
    } catch (AssertionError e) {
      throw new AssertionError(
          label + ": " + e.getMessage() + "\nconformance output so far:\n" + cli.stdout(), e);
    }
    return new Run(label, exit, cli.stdout() + cli.stderr(), read(out));
  }

  private static Map<String, List<Check>> read(Path out) throws IOException {
    Map<String, List<Check>> scenarios = new TreeMap<>();
    List<Path> dirs;
    try (Stream<Path> s = Files.list(out)) {
      dirs = s.filter(Files::isDirectory).sorted(Comparator.naturalOrder()).toList();
    }
    for (Path d : dirs) {
      Matcher m = RESULT_DIR.matcher(d.getFileName().toString());
      Path file = d.resolve("checks.json");
      if (!m.matches() || !Files.isRegularFile(file)) {
        continue;
      }
      List<Check> checks = new ArrayList<>();
      for (JsonNode c : JSON.readTree(file.toFile())) {
        checks.add(
            new Check(
                c.path("id").asText(),
                c.path("status").asText(),
                c.path("description").asText(),
                c.hasNonNull("errorMessage") ? c.get("errorMessage").asText() : null));
      }
      if (scenarios.put(m.group(1), List.copyOf(checks)) != null) {
        throw new IllegalStateException("two results for scenario " + m.group(1) + " in " + out);
      }
    }
    return scenarios;
  }
}
