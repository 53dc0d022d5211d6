package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.call.Admission;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.gate.Decision;
import dev.tally.core.gate.ToolCall;
import dev.tally.sidecar.Sidecar;
import dev.tally.sidecar.SidecarOptions;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Write control changing what {@code tools/list} shows (issue 18) is told to 2025-era sessions: the
 * sidecar appends {@code notifications/tools/list_changed} to each session's open standalone GET
 * stream, which the upstream keeps open and quiet.
 */
class SidecarListChangedIT {
  private Vertx vertx;
  private Sidecar sidecar;
  private final CompletableFuture<Runnable> changed = new CompletableFuture<>();

  @AfterEach
  void stop() throws Exception {
    if (sidecar != null) {
      sidecar.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aSwitchChangeReachesTheSessionsStandaloneStream() throws Exception {
    vertx = Vertx.vertx();
    URI upstream = ScriptedUpstream.start(vertx, this::upstream);
    Admission gate = new FakeGate();
    Admission watched =
        new Admission() {
          @Override
          public CompletionStage<Decision> admit(ToolCall call) {
            return gate.admit(call);
          }

          @Override
          public ContractRegistry contracts() {
            return gate.contracts();
          }

          @Override
          public void onToolsChanged(Runnable r) {
            changed.complete(r);
          }
        };
    sidecar =
        Sidecar.start(
                vertx, SidecarOptions.builder(upstream).port(0).build(), watched, Clock.systemUTC())
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    Runnable notify = changed.get(10, TimeUnit.SECONDS);

    HttpResponse<InputStream> r =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .build()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sidecar.port() + "/mcp"))
                    .timeout(Duration.ofSeconds(20))
                    .header("Accept", "text/event-stream")
                    .header("MCP-Protocol-Version", "2025-06-18")
                    .header("Mcp-Session-Id", "s1")
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.statusCode()).isEqualTo(200);
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
      String first = dataLine(in);
      assertThat(first).as("the stream is open").contains("notifications/message");
      notify.run();
      assertThat(dataLine(in)).contains("\"method\":\"notifications/tools/list_changed\"");
    }
  }

  private static String dataLine(BufferedReader in) throws Exception {
    CompletableFuture<String> line =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                String l;
                while ((l = in.readLine()) != null) {
                  if (l.startsWith("data:") && l.length() > 6) {
                    return l;
                  }
                }
                return null;
              } catch (java.io.IOException e) {
                return null;
              }
            });
    return line.get(15, TimeUnit.SECONDS);
  }

  private void upstream(HttpServerRequest req) {
    // The standalone stream: one notification, then open and quiet.
    req.response()
        .setChunked(true)
        .putHeader("Content-Type", "text/event-stream")
        .write(
            "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n");
  }
}
