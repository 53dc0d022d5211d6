package dev.tally.sidecar.cli;

import dev.tally.core.config.ConfigException;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.fingerprint.KeyException;
import dev.tally.sidecar.app.SidecarSettings;
import dev.tally.sidecar.app.TallyServer;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tally serve}: runs the sidecar in front of an MCP server until {@code SIGTERM}, then
 * drains and exits 0. Precedence of settings: flag &gt; environment &gt; config file &gt; default.
 */
@Command(
    name = "serve",
    header = "Runs the sidecar in front of an MCP server (Ctrl-C or SIGTERM drains and stops).",
    description = {
      "Runs the sidecar in front of an MCP server until Ctrl-C or SIGTERM, then drains and exits 0.",
      "The configuration (file, TALLY_* environment, flags) is checked in full first, against"
          + " config/tally.schema.json and every rule of config/README.md, and the listen ports"
          + " are checked free: a bad one exits 2 (3 for a busy port) before anything is written"
          + " to disk.",
      "Precedence: flag > environment > config file > default."
    })
final class ServeCommand implements Callable<Integer>, TallyCli.Streams {
  @Option(
      names = "--upstream",
      description = "The MCP server's URL, e.g. http://127.0.0.1:3000/mcp (upstream.url).")
  String upstream;

  @Option(
      names = "--listen",
      description = "MCP listen address HOST:PORT (sidecar.listen; default 127.0.0.1:8080).")
  String listen;

  @Option(
      names = "--admin",
      description =
          "Admin listen address HOST:PORT (admin.listen; default 127.0.0.1:9090). Beyond loopback"
              + " (e.g. 0.0.0.0:9090 in a pod) a token is required: admin.tokenFile or"
              + " TALLY_ADMIN_TOKEN.")
  String admin;

  @Option(
      names = "--store",
      description =
          "memory | journal:DIR | postgres://USER@HOST:PORT/DB (store; default"
              + " journal:.tally/journal). Pass a database password with password_file= or"
              + " PGPASSWORD, not in the URL.")
  String store;

  @Option(
      names = "--config",
      description = "Configuration file (YAML); default: the TALLY_CONFIG environment variable.")
  Path config;

  @Option(
      names = "--hmac-key-file",
      description = "HMAC key file (hmac.keyFile); generated beside the store when absent.")
  Path hmacKeyFile;

  PrintStream out = System.out;
  PrintStream err = System.err;

  @Override
  public void streams(InputStream in, PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /** {@code TALLY_CONFIG} names the file when {@code --config} does not (empty: none). */
  static Path configFromEnvironment(java.util.Map<String, String> env) {
    String v = env.get(dev.tally.core.config.ConfigKeys.CONFIG_FILE_ENV);
    return v == null || v.isBlank() ? null : Path.of(v.strip());
  }

  @Override
  public Integer call() throws Exception {
    ConfigOverrides o = ConfigOverrides.ofEnv(System.getenv());
    o = flag(o, "upstream.url", upstream);
    o = flag(o, "sidecar.listen", listen);
    o = flag(o, "admin.listen", admin);
    o = flag(o, "store", store);
    o = flag(o, "hmac.keyFile", hmacKeyFile == null ? null : hmacKeyFile.toString());
    TallyConfig cfg;
    SidecarSettings settings;
    Path file = config != null ? config : configFromEnvironment(System.getenv());
    try {
      // Every check first: nothing (journal, audit directory, generated keys) is created for a
      // configuration that would then be refused.
      Preflight.Checked checked = Preflight.check(file, o, true);
      cfg = checked.config();
      settings = checked.settings();
    } catch (ConfigException e) {
      err.println("tally serve: " + e.getMessage());
      return TallyCli.EXIT_USAGE;
    }
    String busy = Preflight.bindProblem(settings);
    if (busy != null) {
      err.println("tally serve: cannot start: " + busy);
      return TallyCli.EXIT_START;
    }
    TallyServer server;
    try {
      // Status lines of the running server go through the log (text or JSON lines, stderr).
      org.slf4j.Logger status = org.slf4j.LoggerFactory.getLogger("dev.tally.serve");
      server = TallyServer.start(cfg, settings, Clock.systemUTC(), status::info);
    } catch (ConfigException | KeyException e) {
      err.println("tally serve: " + e.getMessage());
      return TallyCli.EXIT_USAGE;
    } catch (Exception e) {
      err.println("tally serve: cannot start: " + startFailure(e, settings));
      return TallyCli.EXIT_START;
    }
    out.println(
        "tally: MCP on http://"
            + hostFor(settings.sidecar().host())
            + ":"
            + server.mcpPort()
            + settings.sidecar().path()
            + " -> "
            + settings.sidecar().upstreamTarget()
            + "; admin on http://"
            + hostFor(settings.admin().listen().host())
            + ":"
            + server.adminPort()
            + "; store "
            + cfg.store().redacted());
    out.flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  int code = 0;
                  try {
                    int unknown = server.stop();
                    out.println(
                        "tally: drained; "
                            + unknown
                            + " unfinished execution(s) recorded as outcome_unknown");
                  } catch (Exception e) {
                    err.println("tally: drain incomplete: " + Errors.describe(e));
                    code = 1;
                  }
                  out.flush();
                  stopped.countDown();
                  // SIGTERM would otherwise end the JVM with status 143; a clean drain is a
                  // success.
                  Runtime.getRuntime().halt(code);
                },
                "tally-drain"));
    stopped.await();
    return 0;
  }

  /**
   * A start-up failure in one line; a bind failure (a port taken after {@link
   * Preflight#bindProblem}) names both listen addresses, since the exception names neither.
   */
  static String startFailure(Throwable e, SidecarSettings settings) {
    String why = Errors.describe(e);
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = t.getMessage();
      if (t instanceof java.net.BindException
          || m != null && m.contains("Address already in use")) {
        return "a listen address is in use (sidecar.listen "
            + hostFor(settings.sidecar().host())
            + ":"
            + settings.sidecar().port()
            + ", admin.listen "
            + settings.admin().listen()
            + "): "
            + why;
      }
    }
    return why;
  }

  private static ConfigOverrides flag(ConfigOverrides o, String path, String value) {
    return value == null ? o : o.withFlag(path, value);
  }

  private static String hostFor(String host) {
    return host.contains(":") ? "[" + host + "]" : host;
  }
}
