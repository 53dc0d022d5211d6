package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tally.core.testing.Chromium;
import dev.tally.core.testing.MutableClock;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console (issue 18) in a real headless Chromium driven over the DevTools protocol: a person
 * follows the {@code confirmUrl} of their pending call, signs in with their own credential and
 * confirms (the call runs once) or cancels it; someone else sees the neutral message; an expired
 * call shows as expired with nothing to click. CI installs the browser ({@code .ci/run}); without
 * one installed the test is skipped, saying so.
 */
class ConsoleBrowserIT {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String ALICE_TOKEN = "alice-console-token-0123456789";
  private static final String BOB_TOKEN = "bob-console-token-9876543210";
  private static final String ADMIN_TOKEN = "admin-token-0123456789abcdef-0123456789";

  @RegisterExtension
  static final CountingUpstreamExtension UPSTREAM = new CountingUpstreamExtension();

  private static Chromium browser;

  private final CountingUpstream upstream = UPSTREAM.get();
  private final McpClient alice = new McpClient("Bearer " + ALICE_TOKEN);
  private final List<String> log = new CopyOnWriteArrayList<>();
  private final MutableClock clock = MutableClock.at(Instant.now());
  @TempDir Path dir;
  private InJvmTally tally;

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
    Path token = dir.resolve("admin.token");
    Files.writeString(token, ADMIN_TOKEN + "\n");
    tally =
        InJvmTally.start(
            "journal:" + dir.resolve("journal"),
            upstream.url(),
            "admin:\n  listen: 127.0.0.1:0\n  tokenFile: "
                + token
                + "\ntools:\n  create_ticket:\n    confirmationRequired: true\n",
            log::add,
            clock);
  }

  @AfterEach
  void stop() throws Exception {
    if (tally != null) {
      tally.close();
    }
    alice.close();
    assertThat(String.join("\n", log))
        .doesNotContain(ALICE_TOKEN)
        .doesNotContain(BOB_TOKEN)
        .doesNotContain(ADMIN_TOKEN);
  }

  @Test
  void aPersonConfirmsTheirPendingActionFromTheLinkAndItRunsOnce() throws Exception {
    String title = "browser-confirm-" + UUID.randomUUID();
    Pending p = pending(title);
    browser.navigate(p.link());
    signIn(ALICE_TOKEN);
    String item = "#focus-body li[data-action='" + p.id() + "']";
    browser.waitFor("document.querySelector(\"" + item + " button.confirm\")");
    String text = browser.eval("document.querySelector(\"" + item + "\").innerText").asText();
    assertThat(text).contains("create_ticket").contains(title).contains("expires in 30 min");
    assertThat(text).contains("cannot be undone");
    browser.eval("document.querySelector(\"" + item + " button.confirm\").click()");
    browser.waitFor("document.getElementById('message').textContent.startsWith('Confirmed')");
    assertThat(browser.eval("document.getElementById('message').textContent").asText())
        .contains("completed_not_delivered");
    assertThat(upstream.sideEffects(title)).isOne();
    assertThat(upstream.receipts(title).get(0).executionId()).isEqualTo(p.id());
    assertThat(upstream.receipts(title).get(0).authorization()).isEqualTo("Bearer " + ALICE_TOKEN);
    browser.waitFor("!document.querySelector(\"" + item + " button.confirm\")");
    assertThat(browser.eval("document.documentElement.outerHTML").asText())
        .as("no secret in the page")
        .doesNotContain(ALICE_TOKEN);
    McpClient.Answer retry =
        alice.call(tally.mcp, 2, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(retry.replay().path("executionId").asText()).isEqualTo(p.id());
    assertThat(upstream.sideEffects(title)).isOne();
  }

  @Test
  void aPersonCancelsFromTheListAndTheActionNeverRuns() throws Exception {
    String title = "browser-cancel-" + UUID.randomUUID();
    Pending p = pending(title);
    browser.navigate(tally.admin("/console"));
    signIn(ALICE_TOKEN);
    String item = "#pending-list li[data-action='" + p.id() + "']";
    browser.waitFor("document.querySelector(\"" + item + " button.cancel\")");
    browser.eval("document.querySelector(\"" + item + " button.cancel\").click()");
    browser.waitFor("document.getElementById('message').textContent.startsWith('Cancelled')");
    browser.waitFor(
        "[...document.querySelectorAll(\"#recent-list li[data-action='"
            + p.id()
            + "'] .state\")].some(e => e.textContent === 'cancelled')");
    McpClient.Answer retry =
        alice.call(tally.mcp, 2, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(retry.tallyCode()).as(retry.body()).isEqualTo("CONFIRMATION_CANCELLED");
    assertThat(upstream.sideEffects(title)).isZero();
  }

  @Test
  void someoneElseFollowingTheLinkSeesOnlyTheNeutralMessage() throws Exception {
    String title = "browser-other-" + UUID.randomUUID();
    Pending p = pending(title);
    browser.navigate(p.link());
    signIn(BOB_TOKEN);
    browser.waitFor("document.querySelector('#focus-body .neutral')");
    assertThat(browser.eval("document.querySelector('#focus-body').innerText").asText())
        .isEqualTo("no longer pending: decided, expired, or requested by someone else");
    assertThat(browser.eval("document.querySelectorAll('button.confirm').length").asInt()).isZero();
    assertThat(browser.eval("document.body.innerText").asText()).doesNotContain(title);
    assertThat(upstream.sideEffects(title)).isZero();
  }

  @Test
  void anExpiredActionShowsAsExpiredWithNothingToConfirm() throws Exception {
    String title = "browser-expired-" + UUID.randomUUID();
    Pending p = pending(title);
    clock.advance(Duration.ofMinutes(31));
    browser.navigate(p.link());
    signIn(ALICE_TOKEN);
    String item = "#focus-body li[data-action='" + p.id() + "']";
    browser.waitFor("document.querySelector(\"" + item + " .state\")");
    assertThat(browser.eval("document.querySelector(\"" + item + " .state\").textContent").asText())
        .isEqualTo("expired");
    assertThat(browser.eval("document.querySelectorAll('button.confirm').length").asInt()).isZero();
    assertThat(upstream.sideEffects(title)).isZero();
  }

  @Test
  void theOperatorResolvesAnUnknownOutcomeInTheOperatorView() throws Exception {
    String title = "browser-unknown-" + UUID.randomUUID();
    upstream.script(title, CountingUpstream.Script.RESET);
    McpClient.Answer lost =
        alice.call(tally.mcp, 1, CountingUpstream.KEYED, title, "k-" + title, WAIT);
    String id = lost.result().path("structuredContent").path("tally").path("executionId").asText();
    assertThat(lost.tallyCode()).as(lost.body()).isEqualTo("OUTCOME_UNKNOWN");
    browser.navigate(tally.admin("/console"));
    browser.waitFor("document.getElementById('signin-form')");
    browser.eval(
        "document.getElementById('credential').value = "
            + Chromium.quote(ADMIN_TOKEN)
            + "; document.getElementById('operator').checked = true;"
            + " document.getElementById('signin-button').click(); true");
    String item = "#unknown-list li[data-action='" + id + "']";
    browser.waitFor("document.querySelector(\"" + item + " button.resolve-failed\")");
    browser.eval("document.querySelector(\"" + item + " button.resolve-failed\").click()");
    browser.waitFor("document.getElementById('message').textContent === 'Resolved as failed.'");
    browser.waitFor("!document.querySelector(\"" + item + "\")");
    assertThat(browser.eval("document.documentElement.outerHTML").asText())
        .doesNotContain(ADMIN_TOKEN);
  }

  // ---- helpers ---------------------------------------------------------------------------------

  record Pending(String id, URI link) {}

  private Pending pending(String title) throws Exception {
    McpClient.Answer a = alice.call(tally.mcp, 1, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    String id = a.result().path("structuredContent").path("actionId").asText();
    assertThat(id).as(a.body()).startsWith("act_");
    return new Pending(
        id, URI.create(a.result().path("structuredContent").path("confirmUrl").asText()));
  }

  private void signIn(String token) throws Exception {
    browser.waitFor("document.getElementById('signin-form')");
    browser.eval(
        "document.getElementById('credential').value = "
            + Chromium.quote(token)
            + "; document.getElementById('signin-button').click(); true");
    browser.waitFor("document.getElementById('signin').hidden");
  }
}
