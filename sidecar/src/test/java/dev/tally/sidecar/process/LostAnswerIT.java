package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.mcp.ToolResults;
import dev.tally.core.testing.MutableClock;
import dev.tally.sidecar.process.CountingUpstream.Script;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Answers that were written but never reached the agent, and outcomes nobody knows, across real
 * client processes and restarts (issue 22, cases 1 and 2): an identical retry is answered from the
 * record, marked as a replay, and the tool does not run a second time. Time is an injected clock;
 * the tests wait for states, never for time.
 */
class LostAnswerIT {
  private static final Duration WAIT = Duration.ofSeconds(20);

  /** A short attach window and no storm window, so only the new hold rules can keep a match. */
  private static final String TOOLS =
      "tools:\n  default:\n    attachWindow: 1m\n    replayWindow: 0s\n";

  @RegisterExtension
  static final CountingUpstreamExtension UPSTREAM = new CountingUpstreamExtension();

  private final CountingUpstream upstream = UPSTREAM.get();
  private final MutableClock clock = MutableClock.at(Instant.now());

  @TempDir Path dir;
  private final McpClient agent = new McpClient();
  private InJvmTally tally;
  private Process curl;

  @AfterEach
  void stop() {
    if (curl != null && curl.isAlive()) {
      curl.destroyForcibly();
    }
    if (tally != null) {
      tally.close();
    }
    agent.close();
  }

  private InJvmTally start() throws Exception {
    return InJvmTally.start(
        "journal:" + dir.resolve("journal"), upstream.url(), TOOLS, line -> {}, clock);
  }

  /**
   * Case 1: the agent process is frozen while the tool runs (SIGSTOP), the sidecar writes the
   * answer into its socket (the kernel takes it: {@code delivered}), then the process is killed
   * (SIGKILL) without reading it. Its identical retry gets the stored result, marked with the
   * execution id and how to repeat on purpose; only after the attach window does an identical call
   * run anew.
   */
  @Test
  void anAnswerWrittenToAFrozenThenKilledClientIsReplayedToItsRetry() throws Exception {
    tally = start();
    String title = "frozen-client";
    upstream.script(title, Script.HOLD);
    curl = curl(title);
    Poll.until(WAIT, () -> upstream.receipts(title).size() == 1, () -> "the call never arrived");
    signal("STOP", curl);
    upstream.release(title);
    Poll.until(WAIT, () -> executions("state=delivered").size() == 1, () -> states());
    signal("KILL", curl);
    assertThat(curl.waitFor(10, TimeUnit.SECONDS)).isTrue();

    McpClient.Answer retry =
        agent.call(tally.mcp, 2, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(retry.isToolResult()).as(retry.body()).isTrue();
    JsonNode marker = retry.replay();
    assertThat(marker.isObject()).as(retry.body()).isTrue();
    assertThat(marker.path("executionId").asText())
        .isEqualTo(executions("state=delivered").get(0).path("executionId").asText());
    assertThat(marker.path("repeat").asText()).isEqualTo(ToolResults.REPEAT_HINT);
    assertThat(upstream.sideEffects(title)).as("one ticket").isOne();

    clock.advance(Duration.ofMinutes(2));
    upstream.script(title, Script.NOW);
    McpClient.Answer later =
        agent.call(tally.mcp, 3, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(later.replay().isMissingNode()).as(later.body()).isTrue();
    assertThat(upstream.sideEffects(title)).as("a new call after the window").isEqualTo(2);
  }

  /**
   * Case 2: an outcome nobody knows outlives a restart longer than the attach window; the retry is
   * still told so and nothing is sent again.
   */
  @Test
  void anUnknownOutcomeStillHoldsAfterARestartLongerThanTheAttachWindow() throws Exception {
    tally = start();
    String title = "unknown-restart";
    upstream.script(title, Script.RESET);
    agent.call(tally.mcp, 1, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(executions("state=outcome_unknown")).hasSize(1);
    tally.close();
    tally = null;

    clock.advance(Duration.ofMinutes(30));
    tally = start();
    McpClient.Answer retry =
        agent.call(tally.mcp, 2, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(retry.tallyCode()).as(retry.body()).isEqualTo("OUTCOME_UNKNOWN");
    assertThat(upstream.receipts(title)).as("sent once").hasSize(1);
  }

  /**
   * Case 2: a result that never reached its agent (the connection dropped while the tool ran) is
   * replayed to an identical retry after the attach window and a restart, not executed again.
   */
  @Test
  void anUndeliveredResultIsReplayedAfterTheAttachWindowAndARestart() throws Exception {
    tally = start();
    String title = "undelivered-restart";
    upstream.script(title, Script.HOLD);
    McpClient.Exchange first = agent.send(tally.mcp, 1, CountingUpstream.IRREVERSIBLE, title, null);
    Poll.until(WAIT, () -> upstream.receipts(title).size() == 1, () -> "the call never arrived");
    first.abort();
    upstream.release(title);
    Poll.until(WAIT, () -> executions("state=completed_not_delivered").size() == 1, () -> states());
    tally.close();
    tally = null;

    clock.advance(Duration.ofMinutes(30));
    tally = start();
    McpClient.Answer retry =
        agent.call(tally.mcp, 2, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(retry.isToolResult()).as(retry.body()).isTrue();
    assertThat(retry.replay().path("state").asText()).isEqualTo("completed_not_delivered");
    assertThat(upstream.sideEffects(title)).as("one ticket").isOne();
  }

  // ---- helpers -----------------------------------------------------------------------------

  /** A curl process posting the call and waiting for its answer. */
  private Process curl(String title) throws IOException {
    return new ProcessBuilder(
            "curl",
            "-sS",
            "-N",
            "--max-time",
            "60",
            "-X",
            "POST",
            "-H",
            "Content-Type: application/json",
            "-H",
            "Accept: application/json, text/event-stream",
            "-H",
            "MCP-Protocol-Version: 2025-11-25",
            "-H",
            "Authorization: Bearer " + McpClient.TOKEN,
            "--data-binary",
            McpClient.call(1, CountingUpstream.IRREVERSIBLE, title),
            tally.mcp.toString())
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
  }

  private static void signal(String name, Process p) throws Exception {
    Process kill =
        new ProcessBuilder("kill", "-" + name, Long.toString(p.pid())).inheritIO().start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).as("kill -" + name).isZero();
  }

  private List<JsonNode> executions(String query) {
    return agent.executions(tally.admin("/v1/executions?" + query));
  }

  private String states() {
    return executions("limit=10").toString();
  }
}
