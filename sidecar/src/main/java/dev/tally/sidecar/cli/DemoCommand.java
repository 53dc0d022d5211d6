package dev.tally.sidecar.cli;

import dev.tally.sidecar.demo.Demo;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code tally demo}: the self-contained walk-through for a newcomer. */
@Command(
    name = "demo",
    header = "Shows a lost response and its retry: the tool runs once, the retry is replayed.",
    description = {
      "Starts a demo MCP server with a write tool that counts its side effects, Tally in front of"
          + " it, and a scripted agent that loses a response and retries.",
      "Prints each step; exits 0, or 1 if the side-effect count is ever wrong."
    })
final class DemoCommand implements Callable<Integer>, TallyCli.Streams {
  PrintStream out = System.out;
  PrintStream err = System.err;

  @Override
  public void streams(InputStream in, PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    try {
      new Demo(out).run();
      return 0;
    } catch (Exception e) {
      err.println("tally demo: " + Errors.describe(e));
      return 1;
    }
  }
}
