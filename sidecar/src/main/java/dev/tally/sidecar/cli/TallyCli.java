package dev.tally.sidecar.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code tally} command line: the executable jar's entry point. Exit codes: 0 success, 1 a
 * check failed (audit), 2 bad input or configuration, 3 the process could not start.
 */
@Command(
    name = "tally",
    mixinStandardHelpOptions = true,
    versionProvider = TallyCli.Version.class,
    description = "Execution identity for MCP tool calls: retries never become second actions.",
    subcommands = {
      ServeCommand.class,
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
    System.exit(run(args));
  }

  /** Runs the CLI and returns its exit code (tests call this). */
  public static int run(String... args) {
    CommandLine cl = new CommandLine(new TallyCli());
    cl.setExitCodeExceptionMapper(t -> EXIT_USAGE);
    return cl.execute(args);
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /** Reads the version from the jar manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = TallyCli.class.getPackage().getImplementationVersion();
      return new String[] {"tally " + (v == null ? "development build" : v)};
    }
  }
}
