package dev.tally.sidecar.it;

import dev.tally.sidecar.Sidecar;
import dev.tally.sidecar.SidecarOptions;
import io.vertx.core.Vertx;
import java.net.URI;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/** An SDK upstream, a {@link FakeGate} and a sidecar in front, on port 0. */
final class SidecarHarness {
  final Vertx vertx;
  final SdkUpstream upstream;
  final FakeGate gate = new FakeGate();
  final Sidecar sidecar;
  final String url;

  SidecarHarness(UnaryOperator<SidecarOptions.Builder> tune) throws Exception {
    vertx =
        Vertx.vertx(
            SidecarOptions.builder(URI.create("http://x/")).eventLoops(2).build().vertxOptions());
    upstream = new SdkUpstream();
    SidecarOptions options =
        tune.apply(SidecarOptions.builder(URI.create(upstream.url())).port(0)).build();
    sidecar =
        Sidecar.start(vertx, options, gate, Clock.systemUTC())
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    url = "http://127.0.0.1:" + sidecar.port() + "/mcp";
  }

  void close() throws Exception {
    sidecar.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    upstream.close();
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
