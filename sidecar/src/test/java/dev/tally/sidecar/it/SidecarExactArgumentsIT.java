package dev.tally.sidecar.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.testing.ExactArgumentsSuite;
import dev.tally.sidecar.SidecarOptions;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.net.URI;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The exact-arguments suite against the sidecar (real gate, memory store) in front of a raw Vert.x
 * upstream that records each {@code tools/call} body as it arrived and answers it with a text
 * result naming the run.
 */
class SidecarExactArgumentsIT extends ExactArgumentsSuite {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final BlockingQueue<byte[]> CALLS = new LinkedBlockingQueue<>();
  private static final AtomicInteger RUNS = new AtomicInteger();
  private static Vertx vertx;
  private static GatedSidecar gated;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    URI upstream = ScriptedUpstream.start(vertx, SidecarExactArgumentsIT::upstream);
    gated =
        GatedSidecar.start(
            vertx,
            SidecarOptions.builder(upstream).port(0).build(),
            ContractRegistry.defaults(),
            "exact-arguments");
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      gated.close();
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private static void upstream(HttpServerRequest req) {
    if (req.method() != HttpMethod.POST) {
      req.response().setStatusCode(405).end();
      return;
    }
    req.body()
        .onSuccess(
            b -> {
              byte[] raw = b.getBytes();
              JsonNode msg;
              try {
                msg = JSON.readTree(raw);
              } catch (Exception e) {
                req.response().setStatusCode(400).end();
                return;
              }
              if (!msg.has("id")) {
                req.response().setStatusCode(202).end();
                return;
              }
              ObjectNode out = JSON.createObjectNode().put("jsonrpc", "2.0");
              out.set("id", msg.get("id"));
              ObjectNode result = out.putObject("result");
              if ("tools/call".equals(msg.path("method").asText())) {
                CALLS.add(raw);
                result
                    .putArray("content")
                    .addObject()
                    .put("type", "text")
                    .put("text", "run #" + RUNS.incrementAndGet());
              }
              req.response().putHeader("Content-Type", "application/json").end(out.toString());
            });
  }

  @Override
  protected URI endpoint() {
    return URI.create(gated.url());
  }

  @Override
  protected BlockingQueue<byte[]> upstreamCalls() {
    return CALLS;
  }

  @Override
  protected String writeTool() {
    return "transfer";
  }
}
