package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.testing.MutableClock;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code notifications/tools/list_changed} through the filter (issue 18): the MCP Java SDK's own
 * servlet transport owns the session's standalone {@code GET} stream, and the filter adds the
 * notification to it, between the SDK's events, when the operator's write switch changes. The real
 * SDK client opens that stream itself after {@code initialize}, gets the notification, lists again
 * and sees the write tools go and come back.
 */
class FilterListChangedIT {
  private static final String ALICE = "Bearer alice-listchanged-0123";
  private static final String ADMIN = "filter-listchanged-admin-token-0123456";

  private final HttpClient http = HttpClient.newHttpClient();
  private final MutableClock clock = MutableClock.at(Instant.now());
  private final LinkedBlockingQueue<List<String>> changes = new LinkedBlockingQueue<>();
  private SdkApp app;
  private McpSyncClient client;

  @BeforeEach
  void start() throws Exception {
    TallyConfig config =
        TallyConfig.parse(
            "store: memory\ntools:\n  " + SdkApp.READ + ":\n    class: read_only\n",
            "test",
            ConfigOverrides.none());
    app = SdkApp.withAdmin(config, ADMIN, clock);
  }

  @AfterEach
  void stop() throws Exception {
    if (client != null) {
      client.closeGracefully();
    }
    app.close();
  }

  private int writes(boolean on) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(app.admin("/v1/writes"))
                .header("Authorization", "Bearer " + ADMIN)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"enabled\":" + on + "}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return r.statusCode();
  }

  private static List<String> names(List<McpSchema.Tool> tools) {
    return tools.stream().map(McpSchema.Tool::name).sorted().toList();
  }

  @Test
  void theSdkClientHearsThatTheWriteSwitchChangedItsToolsOnItsOwnGetStream() throws Exception {
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder(app.baseUrl())
            .endpoint("/mcp")
            .requestBuilder(HttpRequest.newBuilder().header("Authorization", ALICE))
            .build();
    client =
        McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(20))
            .toolsChangeConsumer(tools -> changes.add(names(tools)))
            .build();
    client.initialize();
    assertThat(names(client.listTools().tools())).contains(SdkApp.WRITE, SdkApp.READ);
    // The client opens its GET stream on its own once initialized: wait until the filter has it.
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (app.filter.streams() == 0) {
      assertThat(System.nanoTime()).as("the client's GET stream is open").isLessThan(deadline);
      Thread.sleep(20); // polling the filter's count of live streams, bounded above
    }

    assertThat(writes(false)).isEqualTo(200);
    List<String> off = changes.poll(20, TimeUnit.SECONDS);
    assertThat(off).as("notified, and the new listing hides the writes").isNotNull();
    assertThat(off).contains(SdkApp.READ).doesNotContain(SdkApp.WRITE, SdkApp.CLOSE);

    assertThat(writes(true)).isEqualTo(200);
    List<String> on = changes.poll(20, TimeUnit.SECONDS);
    assertThat(on).as("notified again").isNotNull();
    assertThat(on).contains(SdkApp.READ, SdkApp.WRITE, SdkApp.CLOSE);

    assertThat(
            client.callTool(
                McpSchema.CallToolRequest.builder(SdkApp.READ)
                    .arguments(java.util.Map.of("message", "x"))
                    .build()))
        .as("the SDK's own events still reach it on the same session")
        .isNotNull();
    assertThat(changes).as("nothing else announced").isEmpty();
  }
}
