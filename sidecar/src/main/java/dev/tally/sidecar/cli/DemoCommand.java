package dev.tally.sidecar.cli;

import dev.tally.sidecar.demo.Demo;
import dev.tally.sidecar.demo.DemoMcpServer;
import io.vertx.core.Vertx;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tally demo}: the self-contained walk-through for a newcomer. */
@Command(
    name = "demo",
    header = "Shows a lost response and its retry: the tool runs once, the retry is replayed.",
    description = {
      "Starts a demo MCP server with a write tool that counts its side effects, Tally in front of"
          + " it, and a scripted agent that loses a response and retries.",
      "Prints each step; exits 0, or 1 if the side-effect count is ever wrong.",
      "With --server-only it runs just the demo MCP server on 127.0.0.1 until SIGTERM, e.g. as the"
          + " server container of the Helm chart's example (charts/tally)."
    })
final class DemoCommand implements Callable<Integer>, TallyCli.Streams {
  @Option(
      names = "--server-only",
      description =
          "Run only the demo MCP server (tools create_ticket, search_tickets) on 127.0.0.1.")
  boolean serverOnly;

  @Option(
      names = "--port",
      defaultValue = "3000",
      description = "The demo server's port with --server-only (default: ${DEFAULT-VALUE}).")
  int port;

  PrintStream out = System.out;
  PrintStream err = System.err;

  @Override
  public void streams(InputStream in, PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    if (serverOnly) {
      return serve();
    }
    try {
      new Demo(out).run();
      return 0;
    } catch (Exception e) {
      err.println("tally demo: " + Errors.describe(e));
      return 1;
    }
  }

  private int serve() {
    if (port < 0 || port > 65535) {
      err.println("tally demo: --port " + port + " (expected: 0-65535)");
      return TallyCli.EXIT_USAGE;
    }
    Vertx vertx = Vertx.vertx();
    try {
      DemoMcpServer server =
          DemoMcpServer.start(vertx, port, Duration.ofMillis(400))
              .toCompletionStage()
              .toCompletableFuture()
              .get(30, TimeUnit.SECONDS);
      out.println(
          "tally demo: MCP server on http://127.0.0.1:" + server.port() + "/mcp (Ctrl-C stops)");
      out.flush();
      CountDownLatch stop = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "tally-demo-stop"));
      stop.await();
      return 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    } catch (Exception e) {
      err.println(
          "tally demo: cannot start the server on 127.0.0.1:" + port + ": " + Errors.describe(e));
      vertx.close();
      return TallyCli.EXIT_START;
    }
  }
}
