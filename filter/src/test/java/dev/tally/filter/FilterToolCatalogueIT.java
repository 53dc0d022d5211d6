package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The filter knows the application's tools before the first call (issue "The promise holds under
 * real failures", case 9): from the application's own MCP Java SDK server when it hands its listing
 * over ({@link TallyFilter.Builder#toolListing}), and, on a journal store, from what it learned
 * before a restart. No client lists tools after the start here.
 */
class FilterToolCatalogueIT {
  @TempDir Path dir;
  private SdkApp app;

  @AfterEach
  void stop() throws Exception {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void aReadOnlyToolNoClientListedIsNotRecordedOnItsFirstCall() throws Exception {
    ExecutionStore store = MemoryExecutionStore.create();
    app = SdkApp.withListingFilter(store, TallyConfig.defaults());
    RawMcp raw = new RawMcp(app.endpoint()).initialize();

    String message = "read-" + UUID.randomUUID();
    JsonNode first = raw.call(RawMcp.toolCall(SdkApp.READ, message));
    JsonNode second = raw.call(RawMcp.toolCall(SdkApp.READ, message));

    assertThat(first.at("/result/content/0/text").asText()).isEqualTo("read #1");
    assertThat(second.at("/result/content/0/text").asText())
        .as("the identical read ran again: %s", second)
        .isEqualTo("read #2");
    assertThat(recorded(store, SdkApp.READ)).isZero();
    // The write tool, listed without hints, is still gated.
    raw.call(RawMcp.toolCall(SdkApp.WRITE, "w-" + UUID.randomUUID()));
    assertThat(recorded(store, SdkApp.WRITE)).isOne();
  }

  @Test
  void aReadOnlyToolAClientListedBeforeARestartIsKnownAfterIt() throws Exception {
    TallyConfig config =
        TallyConfig.parse(
            "store: journal:" + dir.resolve("journal") + "\n", "test", ConfigOverrides.none());
    app = SdkApp.withConfiguredFilter(config);
    RawMcp raw = new RawMcp(app.endpoint()).initialize();
    raw.call(RawMcp.request("tools/list"));
    Path kept = dir.resolve("journal").resolve("tool-catalogue.json");
    for (int i = 0; i < 500 && !contains(kept, SdkApp.READ); i++) {
      Thread.sleep(10); // polling a condition: the catalogue is written in the background
    }
    assertThat(contains(kept, SdkApp.READ)).as("%s holds the catalogue", kept).isTrue();
    app.close();

    app = SdkApp.withConfiguredFilter(config);
    RawMcp again = new RawMcp(app.endpoint()).initialize();
    String message = "after-restart-" + UUID.randomUUID();
    again.call(RawMcp.toolCall(SdkApp.READ, message));
    JsonNode second = again.call(RawMcp.toolCall(SdkApp.READ, message));

    assertThat(second.at("/result/content/0/text").asText())
        .as("not replayed: %s", second)
        .isEqualTo("read #2");
    assertThat(recorded(app.filter.gate().store(), SdkApp.READ)).isZero();
  }

  private static boolean contains(Path file, String text) throws java.io.IOException {
    return Files.isRegularFile(file) && Files.readString(file).contains("\"" + text + "\"");
  }

  private static int recorded(ExecutionStore store, String tool) {
    return store
        .list(new ExecutionQuery(null, tool, null, null, ExecutionQuery.MAX_LIMIT))
        .toCompletableFuture()
        .join()
        .items()
        .size();
  }
}
