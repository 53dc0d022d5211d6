package dev.tally.sidecar.cli;

import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code tally} command line: the executable jar's entry point. Exit codes: 0 success, 1 a
 * check failed (audit), 2 bad input or configuration, 3 the process could not start.
 */
@Command(
    name = "tally",
    // INHERIT: every subcommand, nested ones too, takes -h/--help and -V/--version.
    scope = CommandLine.ScopeType.INHERIT,
    mixinStandardHelpOptions = true,
    versionProvider = TallyCli.Version.class,
    description = "Execution identity for MCP tool calls: retries never become second actions.",
    subcommands = {
      ServeCommand.class,
      ConfigCommand.class,
      KeyCommand.class,
      DemoCommand.class,
      CanonicalizeCommand.class,
      FingerprintCommand.class,
      AuditCommand.class,
      CommandLine.HelpCommand.class
    })
public final class TallyCli implements Runnable {
  /** Exit code for bad input or configuration. */
  public static final int EXIT_USAGE = 2;

  /** Exit code when the process could not start (port taken, store locked). */
  public static final int EXIT_START = 3;

  public static void main(String[] args) {
    // java.util.logging (libraries that use it) into SLF4J and logback; System.Logger goes there
    // through slf4j-jdk-platform-logging.
    org.slf4j.bridge.SLF4JBridgeHandler.removeHandlersForRootLogger();
    org.slf4j.bridge.SLF4JBridgeHandler.install();
    System.exit(run(args));
  }

  /** Runs the CLI on the process's standard streams and returns its exit code. */
  public static int run(String... args) {
    return run(System.in, System.out, System.err, args);
  }

  /**
   * Runs the CLI on the given streams and returns its exit code (tests call this). A bad option or
   * argument is one line on {@code err} naming it, and exit code {@link #EXIT_USAGE}.
   */
  public static int run(InputStream in, PrintStream out, PrintStream err, String... args) {
    CommandLine cl = new CommandLine(new TallyCli());
    wireStreams(cl, in, out, err);
    cl.setOut(new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true));
    cl.setErr(new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true));
    cl.setExitCodeExceptionMapper(t -> EXIT_USAGE);
    cl.setParameterExceptionHandler(
        (e, a) -> {
          String command = e.getCommandLine().getCommandName();
          boolean top = e.getCommandLine().getParent() == null;
          e.getCommandLine()
              .getErr()
              .println(
                  (top ? "tally" : "tally " + command)
                      + ": "
                      + e.getMessage()
                      + " (see: "
                      + (top ? "tally --help" : "tally help " + command)
                      + ")");
          return EXIT_USAGE;
        });
    return cl.execute(args);
  }

  /** Hands the streams to every command below {@code cl} that uses them (nested ones too). */
  private static void wireStreams(
      CommandLine cl, InputStream in, PrintStream out, PrintStream err) {
    for (CommandLine sub : cl.getSubcommands().values()) {
      if (sub.getCommand() instanceof Streams s) {
        s.streams(in, out, err);
      }
      wireStreams(sub, in, out, err);
    }
  }

  /** A command that reads or writes the standard streams, so that tests can replace them. */
  interface Streams {
    void streams(InputStream in, PrintStream out, PrintStream err);
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /**
   * The version the build wrote into {@value #VERSION_RESOURCE} (Maven resource filtering), else
   * the jar manifest's {@code Implementation-Version}.
   */
  static final class Version implements CommandLine.IVersionProvider {
    static final String VERSION_RESOURCE = "/dev/tally/sidecar/cli/version.properties";

    @Override
    public String[] getVersion() {
      return new String[] {"tally " + version()};
    }

    /** The build's version, e.g. {@code 0.1.0}; never null. */
    static String version() {
      try (InputStream in = TallyCli.class.getResourceAsStream(VERSION_RESOURCE)) {
        if (in != null) {
          java.util.Properties p = new java.util.Properties();
          p.load(in);
          String v = p.getProperty("version", "");
          if (!v.isBlank() && !v.startsWith("${")) {
            return v.strip();
          }
        }
      } catch (java.io.IOException e) {
        // fall back to the manifest
      }
      String v = TallyCli.class.getPackage().getImplementationVersion();
      return v == null ? "unknown (not built by Maven: " + VERSION_RESOURCE + " missing)" : v;
    }
  }
}
