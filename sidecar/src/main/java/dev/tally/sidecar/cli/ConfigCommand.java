package dev.tally.sidecar.cli;

import dev.tally.core.config.ConfigException;
import dev.tally.core.config.ConfigOverrides;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tally config}: configuration files. */
@Command(
    name = "config",
    header = "Checks configuration files.",
    description = "Checks configuration files (see 'tally config check --help').",
    subcommands = {ConfigCommand.Check.class})
final class ConfigCommand implements Runnable {
  @Override
  public void run() {
    new picocli.CommandLine(this).usage(System.out);
  }

  /** {@code tally config check FILE}. */
  @Command(
      name = "check",
      header = "Checks a configuration file exactly as 'tally serve' would, without starting.",
      description = {
        "Checks FILE against config/tally.schema.json and every rule of config/README.md, with"
            + " the TALLY_* environment applied as 'tally serve' applies it, and that the key and"
            + " token files it names can be read. Writes nothing.",
        "Prints 'ok: FILE' and exits 0, or lists every problem on stderr and exits 2."
      })
  static final class Check implements Callable<Integer>, TallyCli.Streams {
    @Parameters(paramLabel = "FILE", description = "The YAML configuration file.")
    Path file;

    @Option(
        names = "--core-only",
        description =
            "Check only the sections the core owns, e.g. a file for the servlet filter, which"
                + " has no upstream.url (default: the sidecar's sections too).")
    boolean coreOnly;

    @Option(
        names = "--no-env",
        description = "Ignore TALLY_* environment variables: check the file alone.")
    boolean noEnv;

    PrintStream out = System.out;
    PrintStream err = System.err;

    @Override
    public void streams(InputStream in, PrintStream out, PrintStream err) {
      this.out = out;
      this.err = err;
    }

    @Override
    public Integer call() {
      ConfigOverrides overrides =
          ConfigOverrides.ofEnv(noEnv ? java.util.Map.of() : System.getenv());
      try {
        Preflight.Checked c = Preflight.check(file, overrides, !coreOnly);
        out.println(
            "ok: "
                + file
                + " (schema, core"
                + (coreOnly ? "" : " and sidecar")
                + " rules"
                + (noEnv ? "" : ", environment applied")
                + "; store "
                + c.config().store().redacted()
                + ")");
        return 0;
      } catch (ConfigException e) {
        err.println("tally config check: " + e.getMessage());
        return TallyCli.EXIT_USAGE;
      }
    }
  }
}
