package dev.tally.core.call;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.mcp.ToolParamHeaders;
import dev.tally.core.mcp.WireJson;
import dev.tally.core.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ToolCatalogueTest {
  private final WireJson json = WireJson.defaults();
  private final MutableClock clock = MutableClock.create();
  private final ContractRegistry contracts = ContractRegistry.defaults();
  private final ListingLearner learner =
      new ListingLearner(json, contracts, ToolParamHeaders.create());

  /** A lister whose answers the test completes. */
  private final List<CompletableFuture<List<byte[]>>> listings = new ArrayList<>();

  private final ToolCatalogue.Lister lister =
      () -> {
        CompletableFuture<List<byte[]>> f = new CompletableFuture<>();
        synchronized (listings) {
          listings.add(f);
        }
        return f;
      };

  /** What was kept, and what {@link ToolCatalogue.Keeper#load} returns. */
  private final AtomicReference<byte[]> kept = new AtomicReference<>();

  private final ToolCatalogue.Keeper keeper =
      new ToolCatalogue.Keeper() {
        @Override
        public byte[] load() {
          return kept.get();
        }

        @Override
        public void keep(byte[] document) {
          kept.set(document);
        }
      };

  private ToolCatalogue catalogue(ToolCatalogue.Lister l) {
    return new ToolCatalogue(
        learner,
        contracts,
        json,
        new ToolCatalogue.Options(
            l, keeper, "http://up/mcp", clock, Duration.ofSeconds(5), Duration.ofSeconds(10)));
  }

  private static byte[] page(String toolsJson) {
    return ("{\"tools\":" + toolsJson + "}").getBytes(StandardCharsets.UTF_8);
  }

  private static final String READ_ONLY =
      "[{\"name\":\"search\",\"annotations\":{\"readOnlyHint\":true}},{\"name\":\"write\"}]";

  @Test
  void startListsAndLearnsAnnotationsBeforeAnyClientLists() {
    ToolCatalogue c = catalogue(lister);
    c.start();
    assertThat(listings).hasSize(1);
    listings.get(0).complete(List.of(page(READ_ONLY)));

    assertThat(contracts.resolve("search").toolClass()).isEqualTo(ToolClass.READ_ONLY);
    assertThat(learner.knows("write")).isTrue();
    assertThat(c.awaitKnown("search")).as("a known tool waits for nothing").isNull();
  }

  @Test
  void anUnknownToolWaitsForOneListingThenIsRateLimited() throws Exception {
    ToolCatalogue c = catalogue(lister);
    c.start();
    listings.get(0).complete(List.of(page("[{\"name\":\"write\"}]")));

    // Listed just now: an unknown name does not list again within the refresh interval.
    assertThat(c.awaitKnown("added")).isNull();
    clock.advance(Duration.ofSeconds(11));
    CompletionStage<Void> waiting = c.awaitKnown("added");
    assertThat(waiting).isNotNull();
    assertThat(waiting.toCompletableFuture()).isNotDone();
    assertThat(c.awaitKnown("other")).as("joins the listing that runs").isNotNull();
    assertThat(listings).hasSize(2);
    listings
        .get(1)
        .complete(List.of(page("[{\"name\":\"added\",\"annotations\":{\"readOnlyHint\":true}}]")));
    waiting.toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(contracts.resolve("added").toolClass()).isEqualTo(ToolClass.READ_ONLY);
    assertThat(learner.knows("write")).as("a complete listing forgets what it dropped").isFalse();
  }

  @Test
  void aListingThatHangsLetsTheCallGoOnAfterTheWait() throws Exception {
    ToolCatalogue c =
        new ToolCatalogue(
            learner,
            contracts,
            json,
            new ToolCatalogue.Options(
                lister, keeper, "t", clock, Duration.ofMillis(50), Duration.ofSeconds(10)));
    CompletionStage<Void> waiting = c.awaitKnown("x");
    assertThat(waiting).isNotNull();
    waiting.toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(contracts.resolve("x").toolClass()).isEqualTo(ToolClass.IRREVERSIBLE);
  }

  @Test
  void configuredToolsAndAbsentListersNeverWait() {
    ContractRegistry configured =
        dev.tally.core.config.TallyConfig.parse(
                "tools:\n  fixed: {class: keyed}\n",
                "test",
                dev.tally.core.config.ConfigOverrides.none())
            .tools()
            .newRegistry();
    ToolCatalogue c =
        new ToolCatalogue(
            new ListingLearner(json, configured, ToolParamHeaders.create()),
            configured,
            json,
            new ToolCatalogue.Options(
                lister, keeper, "t", clock, Duration.ofSeconds(5), Duration.ofSeconds(10)));
    assertThat(c.awaitKnown("fixed")).isNull();
    assertThat(catalogue(null).awaitKnown("anything")).isNull();
    assertThat(c.awaitKnown(null)).isNull();
  }

  @Test
  void listChangedWhileListingListsOnceMoreAfterIt() {
    ToolCatalogue c = catalogue(lister);
    c.start();
    c.listChanged();
    c.listChanged();
    assertThat(listings).hasSize(1);
    listings.get(0).complete(List.of(page(READ_ONLY)));
    assertThat(listings).hasSize(2);
    listings.get(1).complete(List.of(page(READ_ONLY)));
    assertThat(listings).hasSize(2);
  }

  @Test
  void aFailedListingLeavesWhatIsKnownAndLearningFromClientsGoesOn() {
    AtomicInteger calls = new AtomicInteger();
    ToolCatalogue c =
        catalogue(
            () -> {
              calls.incrementAndGet();
              return CompletableFuture.failedFuture(
                  new ToolCatalogue.ListingFailed("HTTP 401 to initialize"));
            });
    c.start();
    assertThat(calls).hasValue(1);
    learner.result(page(READ_ONLY));
    assertThat(contracts.resolve("search").toolClass()).isEqualTo(ToolClass.READ_ONLY);
  }

  @Test
  void whatIsLearnedIsKeptAndARestartKnowsItBeforeListing() {
    ToolCatalogue c = catalogue(null);
    c.start();
    learner.result(page(READ_ONLY)); // a client's tools/list
    assertThat(kept.get()).isNotNull();
    assertThat(new String(kept.get(), StandardCharsets.UTF_8))
        .contains("\"name\":\"search\"")
        .contains("\"readOnlyHint\":true");

    // A new process: a fresh registry, the same keeper.
    ContractRegistry fresh = ContractRegistry.defaults();
    ListingLearner l2 = new ListingLearner(json, fresh, ToolParamHeaders.create());
    new ToolCatalogue(
            l2,
            fresh,
            json,
            new ToolCatalogue.Options(
                null, keeper, "http://up/mcp", clock, Duration.ZERO, Duration.ZERO))
        .start();
    assertThat(fresh.resolve("search").toolClass()).isEqualTo(ToolClass.READ_ONLY);
    assertThat(l2.knows("write")).isTrue();
  }

  @Test
  void aCatalogueKeptForAnotherUpstreamOrUnreadableIsIgnored() {
    ToolCatalogue c = catalogue(null);
    c.start();
    learner.result(page(READ_ONLY));

    ContractRegistry other = ContractRegistry.defaults();
    new ToolCatalogue(
            new ListingLearner(json, other, ToolParamHeaders.create()),
            other,
            json,
            new ToolCatalogue.Options(
                null, keeper, "http://another/mcp", clock, Duration.ZERO, Duration.ZERO))
        .start();
    assertThat(other.resolve("search").toolClass()).isEqualTo(ToolClass.IRREVERSIBLE);

    kept.set("not json".getBytes(StandardCharsets.UTF_8));
    ContractRegistry broken = ContractRegistry.defaults();
    new ToolCatalogue(
            new ListingLearner(json, broken, ToolParamHeaders.create()),
            broken,
            json,
            new ToolCatalogue.Options(
                null, keeper, "http://up/mcp", clock, Duration.ZERO, Duration.ZERO))
        .start();
    assertThat(broken.resolve("search").toolClass()).isEqualTo(ToolClass.IRREVERSIBLE);
  }
}
