package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.testing.Chromium;
import dev.tally.core.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The console's operator view served by the filter's {@link TallyAdminServlet} (at {@code
 * /tally/*}), in a real headless Chromium driven over the DevTools protocol (core's {@link
 * Chromium}, shared with the sidecar's console test): the operator signs in with the admin token,
 * sees the write whose answer was lost as {@code outcome_unknown} with its timeline, resolves it as
 * completed with a text, and the agent's retry replays that text. CI installs the browser ({@code
 * .ci/run}); without one the test is skipped, saying so.
 */
class FilterConsoleBrowserIT {
  private static final String ALICE = "Bearer alice-browser-filter-0123";
  private static final String ADMIN = "filter-browser-admin-token-0123456789";

  private static Chromium browser;

  private final MutableClock clock = MutableClock.at(Instant.now());
  private SdkApp app;

  @BeforeAll
  static void openBrowser() throws Exception {
    var binary = Chromium.binary();
    assumeTrue(
        binary.isPresent(),
        "no headless Chromium here (apt-get install chromium-headless-shell, or TALLY_CHROMIUM)");
    browser = Chromium.start(binary.get());
  }

  @AfterAll
  static void closeBrowser() {
    if (browser != null) {
      browser.close();
    }
  }

  @BeforeEach
  void start() throws Exception {
    app =
        SdkApp.withAdmin(
            TallyConfig.parse("store: memory\n", "test", ConfigOverrides.none()), ADMIN, clock);
  }

  @AfterEach
  void stop() throws Exception {
    app.close();
  }

  @Test
  void theOperatorResolvesAnUnknownOutcomeInTheFiltersConsoleAndTheRetryReplaysIt()
      throws Exception {
    RawMcp alice = new RawMcp(app.endpoint());
    alice.session.put("Authorization", ALICE);
    alice.initialize();
    String message = "browser-lost-" + UUID.randomUUID();
    Map<String, String> lost = new LinkedHashMap<>(alice.session);
    lost.put(SdkApp.DROP_ANSWER, "1");
    alice.post(RawMcp.toolCall(SdkApp.WRITE, message).toString(), lost);
    String id = unknownId();

    browser.navigate(app.admin("/console"));
    browser.waitFor("document.getElementById('signin-form')");
    browser.eval(
        "document.getElementById('credential').value = "
            + Chromium.quote(ADMIN)
            + "; document.getElementById('operator').checked = true;"
            + " document.getElementById('signin-button').click(); true");
    String item = "#unknown-list li[data-action='" + id + "']";
    browser.waitFor("document.querySelector(\"" + item + " button.resolve-completed\")");
    String text = browser.eval("document.querySelector(\"" + item + "\").innerText").asText();
    assertThat(text).contains(SdkApp.WRITE).contains("outcome_unknown").contains("dispatched");

    String resolved = "ticket T-1 found by the operator";
    browser.eval(
        "document.querySelector(\""
            + item
            + " input.resolve-text\").value = "
            + Chromium.quote(resolved)
            + "; document.querySelector(\""
            + item
            + " button.resolve-completed\").click(); true");
    browser.waitFor("document.getElementById('message').textContent === 'Resolved as completed.'");
    browser.waitFor("!document.querySelector(\"" + item + "\")");
    assertThat(browser.eval("document.documentElement.outerHTML").asText())
        .as("no secret in the page")
        .doesNotContain(ADMIN);

    JsonNode retry = alice.call(RawMcp.toolCall(SdkApp.WRITE, message));
    assertThat(retry.path("result").path("content").path(0).path("text").asText())
        .as(retry.toString())
        .isEqualTo(resolved);
    assertThat(app.writes.get()).as("ran once, when its answer was lost").isOne();
  }

  /** The one {@code outcome_unknown} execution, once the filter recorded it (bounded wait). */
  private String unknownId() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
    while (true) {
      var items =
          app.filter
              .gate()
              .store()
              .list(
                  new dev.tally.core.store.ExecutionQuery(
                      dev.tally.core.execution.ExecutionState.OUTCOME_UNKNOWN,
                      SdkApp.WRITE,
                      null,
                      null,
                      10))
              .toCompletableFuture()
              .join()
              .items();
      if (!items.isEmpty()) {
        return items.get(0).id().value();
      }
      assertThat(System.nanoTime()).as("recorded as outcome_unknown in time").isLessThan(deadline);
      Thread.sleep(50); // polling the recorded state, bounded above
    }
  }
}
