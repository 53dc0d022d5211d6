package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.call.Admission;
import dev.tally.core.call.ToolCatalogue;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.execution.Execution;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.GateOptions;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.core.testing.MutableClock;
import dev.tally.sidecar.Sidecar;
import dev.tally.sidecar.SidecarOptions;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sidecar knows the upstream's tool catalogue before the first call (issue "The promise holds
 * under real failures", case 9): it lists the tools itself on its own session, at start, for a tool
 * it does not know, and when a relayed stream says the list changed; no client lists anything here.
 * The restart half (the catalogue kept with the store) is {@code ToolCatalogueRestartIT}.
 */
class SidecarToolCatalogueIT {
  private Vertx vertx;
  private MemoryExecutionStore store;
  private Gate gate;
  private Sidecar sidecar;
  private final MutableClock clock = MutableClock.create();

  @BeforeEach
  void vertx() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void stop() throws Exception {
    if (sidecar != null) {
      sidecar.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    if (gate != null) {
      gate.close();
      store.close();
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private String start(String upstream) throws Exception {
    return start(SidecarOptions.builder(URI.create(upstream)).port(0).listTools(true).build());
  }

  private String start(SidecarOptions options) throws Exception {
    store = MemoryExecutionStore.create();
    gate =
        Gate.builder(
                store,
                KeyRing.of(
                    HmacKey.of(
                        "k1",
                        "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII))))
            .options(GateOptions.defaults("catalogue"))
            .contracts(ContractRegistry.defaults())
            .actors(h -> "actor-1")
            .clock(clock)
            .build();
    sidecar =
        Sidecar.start(vertx, options, Admission.of(gate), clock, ToolCatalogue.Keeper.NONE)
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    return "http://127.0.0.1:" + sidecar.port() + "/mcp";
  }

  private List<Execution> recorded(String tool) throws Exception {
    return store
        .list(new ExecutionQuery(null, tool, null, null, 50))
        .toCompletableFuture()
        .get(5, TimeUnit.SECONDS)
        .items();
  }

  @Test
  void aReadOnlyToolNoClientListedIsNotRecordedOnItsFirstCall() throws Exception {
    try (SdkUpstream upstream = new SdkUpstream()) {
      RawMcp raw = new RawMcp(start(upstream.url())).initialize();

      // No tools/list from any client: the sidecar's own listing taught it get_ticket is read-only.
      String first = raw.post(RawMcp.call(2, "get_ticket", "{\"id\":\"T-9\"}")).body();
      String second = raw.post(RawMcp.call(3, "get_ticket", "{\"id\":\"T-9\"}")).body();

      assertThat(first).contains("ticket T-9");
      assertThat(second).contains("ticket T-9").doesNotContain("dev.tally/replay");
      assertThat(upstream.readCalls).as("both identical reads ran").hasValue(2);
      assertThat(recorded("get_ticket")).isEmpty();
    }
  }

  @Test
  void aToolTheUpstreamAddedLaterIsListedAgainOnItsFirstCall() throws Exception {
    try (CatalogueUpstream upstream = CatalogueUpstream.open()) {
      upstream.tools("write");
      RawMcp raw = new RawMcp(start(upstream.url())).initialize();
      awaitTrue(() -> upstream.listings() == 1, "the sidecar listed at start");

      upstream.tools("write", "peek:readOnly");
      clock.advance(Duration.ofSeconds(11)); // past the refresh interval for unknown names
      raw.post(RawMcp.call(2, "peek", "{}"));
      raw.post(RawMcp.call(3, "peek", "{}"));

      assertThat(upstream.listings()).as("peek was unknown: listed once more").isEqualTo(2);
      assertThat(upstream.listedBy()).containsOnly("tally-sidecar");
      assertThat(upstream.calls("peek")).isEqualTo(2);
      assertThat(recorded("peek")).isEmpty();
    }
  }

  @Test
  void aListChangedNotificationOnARelayedStreamListsAgain() throws Exception {
    try (CatalogueUpstream upstream = CatalogueUpstream.open()) {
      upstream.tools(CatalogueUpstream.ANNOUNCING);
      RawMcp raw = new RawMcp(start(upstream.url())).initialize();
      awaitTrue(() -> upstream.listings() == 1, "the sidecar listed at start");

      // The clock stands still: an unknown name alone would not list again within the interval.
      upstream.tools(CatalogueUpstream.ANNOUNCING, "peek:readOnly");
      assertThat(raw.post(RawMcp.call(2, CatalogueUpstream.ANNOUNCING, "{}")).body())
          .contains("notifications/tools/list_changed")
          .contains("announce #1");
      awaitTrue(() -> upstream.listings() == 2, "the list change made the sidecar list again");
      awaitTrue(
          () -> !sidecarWouldRecord("peek"), "the second listing was learned before the call");
      raw.post(RawMcp.call(3, "peek", "{}"));
      raw.post(RawMcp.call(4, "peek", "{}"));

      assertThat(upstream.calls("peek")).isEqualTo(2);
      assertThat(recorded("peek")).isEmpty();
    }
  }

  @Test
  void anUpstreamBehindAuthenticationIsListedWithTheConfiguredHeaderOnly() throws Exception {
    try (CatalogueUpstream upstream = CatalogueUpstream.withAuthorization("Bearer svc-0123")) {
      upstream.tools("peek:readOnly");
      String url =
          start(
              SidecarOptions.builder(URI.create(upstream.url()))
                  .port(0)
                  .listTools(true)
                  .listToolsHeaders(java.util.Map.of("Authorization", "Bearer svc-0123"))
                  .build());
      awaitTrue(() -> upstream.listings() == 1, "the sidecar listed with its own credential");
      assertThat(upstream.refused()).isZero();

      // A client without a credential is not helped by the sidecar's: its call is refused upstream.
      RawMcp raw = new RawMcp(url);
      assertThat(raw.post(RawMcp.call(2, "peek", "{}")).statusCode()).isEqualTo(401);
      assertThat(upstream.refused()).isOne();
      assertThat(recorded("peek")).as("peek was known read-only: nothing recorded").isEmpty();
    }
  }

  @Test
  void a2026ServerIsListedStatelesslyAndItsHeaderParametersAreCheckedWithoutAClientListing()
      throws Exception {
    ModernUpstream upstream = new ModernUpstream(vertx);
    String url = start(upstream.url());
    awaitTrue(() -> upstream.posts.get() >= 2, "initialize refused, then a stateless tools/list");

    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofSeconds(15))
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .header("MCP-Protocol-Version", "2026-07-28")
                    .header("Mcp-Method", "tools/call")
                    .header("Mcp-Name", "deploy")
                    .header("Mcp-Param-Region", "us-east-1")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{"
                                + "\"name\":\"deploy\",\"arguments\":{\"region\":\"eu-west-1\"},"
                                + "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
                                + "\"2026-07-28\"}}}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());

    assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
    assertThat(r.body()).contains("HEADER_MISMATCH");
    assertThat(upstream.effects).hasValue(0);
  }

  /** Whether the gate would record a call of {@code tool} (it is not known read-only yet). */
  private boolean sidecarWouldRecord(String tool) {
    return !gate.passesThrough(tool);
  }

  private static void awaitTrue(BooleanSupplier c, String what) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!c.getAsBoolean()) {
      assertThat(System.nanoTime() - end).as(what).isNegative();
      Thread.sleep(5);
    }
  }
}
