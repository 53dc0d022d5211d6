package dev.tally.sidecar.process;

import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.sidecar.app.SidecarSettings;
import dev.tally.sidecar.app.TallyServer;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A whole Tally server (store, audit, gate, MCP proxy, admin port) in the test JVM, by default on
 * the journal store in {@code dir/journal} with its audit journals in {@code dir/journal/audit}, on
 * free ports.
 */
final class InJvmTally implements AutoCloseable {
  final TallyServer server;
  final URI mcp;

  private InJvmTally(TallyServer server) {
    this.server = server;
    this.mcp = URI.create("http://127.0.0.1:" + server.mcpPort() + "/mcp");
  }

  /**
   * Starts Tally in front of {@code upstreamUrl}; {@code extraYaml} adds top-level sections (a
   * {@code sidecar:} or {@code admin:} section there replaces the default one, which listens on a
   * free loopback port).
   */
  static InJvmTally start(Path dir, String upstreamUrl, String extraYaml, Consumer<String> log)
      throws Exception {
    return start("journal:" + dir.resolve("journal"), upstreamUrl, extraYaml, log);
  }

  /** As {@link #start(Path, String, String, Consumer)} on {@code store} (e.g. {@code memory}). */
  static InJvmTally start(String store, String upstreamUrl, String extraYaml, Consumer<String> log)
      throws Exception {
    return start(store, upstreamUrl, extraYaml, log, Clock.systemUTC());
  }

  /** As {@link #start(String, String, String, Consumer)}, on {@code clock}. */
  static InJvmTally start(
      String store, String upstreamUrl, String extraYaml, Consumer<String> log, Clock clock)
      throws Exception {
    String yaml =
        "upstream:\n  url: "
            + upstreamUrl
            + (extraYaml.contains("sidecar:") ? "\n" : "\nsidecar:\n  listen: 127.0.0.1:0\n")
            + "store: "
            + store
            + "\n"
            + extraYaml;
    if (!extraYaml.contains("admin:")) {
      yaml += "\nadmin:\n  listen: 127.0.0.1:0\n";
    }
    TallyConfig cfg = TallyConfig.parse(yaml, "test configuration", ConfigOverrides.none());
    SidecarSettings settings = SidecarSettings.from(cfg, ConfigOverrides.ofEnv(Map.of()));
    return new InJvmTally(TallyServer.start(cfg, settings, clock, log));
  }

  URI admin(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + server.adminPort() + pathAndQuery);
  }

  /** Stops Tally as SIGTERM would (drain, then close the store and the audit journals). */
  @Override
  public void close() {
    try {
      server.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping Tally", e);
    } catch (Exception e) {
      throw new IllegalStateException("stopping Tally failed", e);
    }
  }
}
