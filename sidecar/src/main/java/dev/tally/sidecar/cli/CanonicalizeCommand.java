package dev.tally.sidecar.cli;

import dev.tally.core.canonical.CanonicalLimits;
import dev.tally.core.canonical.CanonicalizationException;
import dev.tally.core.canonical.Jcs;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tally canonicalize}: JSON on stdin → RFC 8785 canonical JSON on stdout. */
@Command(
    name = "canonicalize",
    header = "Writes the RFC 8785 canonical form of the JSON on stdin.",
    description = {
      "Reads JSON on stdin and writes its RFC 8785 canonical form to stdout.",
      "Bad input: exit 2 and one line on stderr naming the JSON pointer of the problem."
    })
final class CanonicalizeCommand implements Callable<Integer>, TallyCli.Streams {
  @Option(
      names = "--max-depth",
      defaultValue = "" + CanonicalLimits.DEFAULT_MAX_DEPTH,
      description = "Deepest nesting accepted (default: ${DEFAULT-VALUE}).")
  int maxDepth;

  @Option(
      names = "--max-bytes",
      defaultValue = "" + CanonicalLimits.DEFAULT_MAX_BYTES,
      description = "Largest document accepted, in bytes (default: ${DEFAULT-VALUE}).")
  int maxBytes;

  InputStream in = System.in;
  PrintStream out = System.out;
  PrintStream err = System.err;

  @Override
  public void streams(InputStream in, PrintStream out, PrintStream err) {
    this.in = in;
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    try {
      Jcs jcs = Jcs.create(new CanonicalLimits(maxDepth, maxBytes));
      byte[] input = Input.readAll(in, maxBytes);
      out.write(jcs.canonicalize(input));
      if (System.console() != null) {
        out.println();
      }
      out.flush();
      return 0;
    } catch (CanonicalizationException e) {
      err.println("tally canonicalize: " + e.getMessage());
      return TallyCli.EXIT_USAGE;
    } catch (Input.TooLarge e) {
      err.println("tally canonicalize: input over " + maxBytes + " bytes (see --max-bytes)");
      return TallyCli.EXIT_USAGE;
    } catch (IllegalArgumentException e) {
      err.println("tally canonicalize: " + e.getMessage());
      return TallyCli.EXIT_USAGE;
    } catch (IOException e) {
      err.println("tally canonicalize: cannot read stdin: " + e.getClass().getSimpleName());
      return TallyCli.EXIT_USAGE;
    }
  }
}
