package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.sidecar.Sidecar;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The upstream URL's own query (an upstream credential such as {@code ?token=…}, which every log
 * and record shows redacted) goes with every request, before the client's query.
 */
class SidecarUpstreamQueryIT {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void theUpstreamQueryIsSentFirstThenTheClients() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    URI upstream =
        ScriptedUpstream.start(
            vertx,
            req -> {
              seen.add(req.uri());
              req.response()
                  .putHeader("Content-Type", "application/json")
                  .end("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}");
            });
    Sidecar sidecar =
        ScriptedUpstream.sidecar(
            vertx,
            URI.create(upstream + "?token=s3cr3t-value"),
            Duration.ofSeconds(5),
            Clock.systemUTC());
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    for (String query : new String[] {"?tenant=a", ""}) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + sidecar.port() + "/mcp" + query))
                  .header("Content-Type", "application/json")
                  .header("Accept", "application/json, text/event-stream")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
    }
    assertThat(seen).containsExactly("/mcp?token=s3cr3t-value&tenant=a", "/mcp?token=s3cr3t-value");
  }
}
