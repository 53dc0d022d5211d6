package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.sidecar.it.CatalogueUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code tally serve} process on the journal store, killed and restarted (issue "The promise
 * holds under real failures", case 9): what it learned of the upstream's tools before the restart
 * is known after it, before any client lists. The upstream refuses the sidecar's own listing
 * session (it wants the client's credential, which the sidecar never borrows), so the only way to
 * know the read-only tool after the restart is the catalogue kept with the store.
 */
class ToolCatalogueRestartIT {
  private static final Duration START = Duration.ofSeconds(60);
  private static final String TOKEN = "Bearer catalogue-client-token-0123456789";
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @TempDir Path dir;

  @Test
  void aReadOnlyToolLearnedBeforeARestartIsKnownAfterItBeforeAnyClientLists() throws Exception {
    try (CatalogueUpstream upstream = CatalogueUpstream.withAuthorization(TOKEN)) {
      upstream.tools("lookup:readOnly", "write");
      Path config = dir.resolve("tally.yaml");
      Files.writeString(
          config,
          "upstream:\n  url: "
              + upstream.url()
              + "\nstore: journal:"
              + dir.resolve("journal")
              + "\n");
      Path kept = dir.resolve("journal").resolve("tool-catalogue.json");

      try (TallyProcess first =
          TallyProcess.serve(dir, config, TallyProcess.SMALL_JVM, Map.of()).awaitListening(START)) {
        Poll.until(
            Duration.ofSeconds(20),
            () -> first.stderr().contains("could not list the tools"),
            () -> "no warning about the refused listing " + first.output());
        assertThat(upstream.listings()).as("the sidecar's own session was refused").isZero();

        // A client lists with its own credential: the sidecar learns, and keeps what it learned.
        Session s = Session.open(http, first.mcp());
        assertThat(s.post(2, "tools/list", "{}").toString()).contains("lookup");
        Poll.until(
            Duration.ofSeconds(20),
            () -> read(kept).contains("\"lookup\""),
            () -> kept + " does not hold the catalogue: " + read(kept));
        first.kill();
        String out = first.stdout() + first.stderr();
        assertThat(out.lines().filter(l -> l.contains("could not list the tools")).count())
            .as("one warning line " + out)
            .isOne();
        assertThat(out).doesNotContain("catalogue-client-token");
      }

      try (TallyProcess second =
          TallyProcess.serve(dir, config, TallyProcess.SMALL_JVM, Map.of()).awaitListening(START)) {
        int listingsBefore = upstream.listings();
        Session s = Session.open(http, second.mcp());
        JsonNode one = s.post(3, "tools/call", "{\"name\":\"lookup\",\"arguments\":{\"q\":\"a\"}}");
        JsonNode two = s.post(4, "tools/call", "{\"name\":\"lookup\",\"arguments\":{\"q\":\"a\"}}");

        assertThat(one.path("result").path("content").path(0).path("text").asText())
            .isEqualTo("lookup #1");
        assertThat(two.path("result").path("content").path(0).path("text").asText())
            .as("the identical read ran again, not replayed: %s", two)
            .isEqualTo("lookup #2");
        assertThat(upstream.calls("lookup")).isEqualTo(2);
        assertThat(upstream.listings()).as("no client listed").isEqualTo(listingsBefore);
        JsonNode recorded = admin(second, "/v1/executions?tool=lookup");
        assertThat(recorded.path("items")).as("lookup passed through unrecorded").isEmpty();
        second.kill();
      }
    }
  }

  private JsonNode admin(TallyProcess p, String path) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(p.admin(path)).timeout(Duration.ofSeconds(10)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private static String read(Path p) {
    try {
      return Files.isRegularFile(p) ? Files.readString(p) : "";
    } catch (java.io.IOException e) {
      return "";
    }
  }

  /** A 2025-11-25 session through the sidecar, with the client's credential on every request. */
  private record Session(HttpClient http, URI mcp, String id) {
    static Session open(HttpClient http, URI mcp) throws Exception {
      HttpResponse<String> init =
          send(
              http,
              mcp,
              null,
              "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                  + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                  + "\"clientInfo\":{\"name\":\"agent\",\"version\":\"1\"}}}");
      assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
      String id = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
      send(http, mcp, id, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
      return new Session(http, mcp, id);
    }

    JsonNode post(int rpcId, String method, String params) throws Exception {
      HttpResponse<String> r =
          send(
              http,
              mcp,
              id,
              "{\"jsonrpc\":\"2.0\",\"id\":"
                  + rpcId
                  + ",\"method\":\""
                  + method
                  + "\",\"params\":"
                  + params
                  + "}");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      String body = r.body();
      if (!body.startsWith("{")) {
        String data = "";
        for (String line : body.split("\n")) {
          if (line.startsWith("data:") && line.length() > 6) {
            data = line.substring(5).trim();
          }
        }
        body = data;
      }
      return JSON.readTree(body);
    }

    private static HttpResponse<String> send(HttpClient http, URI mcp, String session, String body)
        throws Exception {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(mcp)
              .timeout(Duration.ofSeconds(20))
              .header("Content-Type", "application/json")
              .header("Accept", "application/json, text/event-stream")
              .header("MCP-Protocol-Version", "2025-11-25")
              .header("Authorization", TOKEN)
              .POST(HttpRequest.BodyPublishers.ofString(body));
      if (session != null) {
        b.header("Mcp-Session-Id", session);
      }
      return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
