package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.sidecar.process.CountingUpstream.Receipt;
import dev.tally.sidecar.process.CountingUpstream.Script;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upstream performs a call and then loses the connection before answering (issue 3's fault
 * case): what a retry gets depends on the tool's contract, and the side effect happens once.
 */
class UpstreamResetIT {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension
  static final CountingUpstreamExtension UPSTREAM = new CountingUpstreamExtension();

  private final CountingUpstream upstream = UPSTREAM.get();

  @TempDir Path dir;
  private final McpClient agent = new McpClient();
  private InJvmTally tally;

  @AfterEach
  void stop() {
    if (tally != null) {
      tally.close();
    }
    agent.close();
  }

  /** keyed: the retry re-dispatches under the same key; the upstream deduplicates it. */
  @Test
  void aKeyedCallIsReDispatchedWithTheSameKeyAndTakesEffectOnce() throws Exception {
    tally =
        InJvmTally.start(
            dir, upstream.url(), "tools:\n  keyed_ticket:\n    class: keyed\n", line -> {});
    String title = "reset-keyed";
    upstream.script(title, Script.RESET);
    McpClient.Answer first = agent.call(tally.mcp, 1, CountingUpstream.KEYED, title, null, WAIT);
    // Told the truth at once, as a tool result: unknown, and a retry is safe (same key).
    assertThat(first.status()).isEqualTo(200);
    assertThat(first.tallyCode()).as(first.body()).isEqualTo("OUTCOME_UNKNOWN");
    assertThat(first.result().at("/structuredContent/tally/retryable").asBoolean()).isTrue();

    McpClient.Answer retry = agent.call(tally.mcp, 2, CountingUpstream.KEYED, title, null, WAIT);
    assertThat(retry.isToolResult()).as(retry.body()).isTrue();
    List<Receipt> receipts = upstream.receipts(title);
    assertThat(receipts).hasSize(2);
    assertThat(receipts.get(1).idempotencyKey())
        .isEqualTo(receipts.get(0).idempotencyKey())
        .isEqualTo(receipts.get(1).executionId())
        .isEqualTo(receipts.get(0).executionId());
    assertThat(upstream.sideEffects(title)).as("one ticket for one key").isOne();
    assertThat(retry.ticket()).isEqualTo(upstream.ticketOf(receipts.get(0).idempotencyKey()));
  }

  /** irreversible: the retry is told the outcome is unknown; nothing is sent again. */
  @Test
  void anIrreversibleCallIsReportedUnknownAndNotSentAgain() throws Exception {
    tally = InJvmTally.start(dir, upstream.url(), "", line -> {});
    String title = "reset-irreversible";
    upstream.script(title, Script.RESET);
    McpClient.Answer first =
        agent.call(tally.mcp, 1, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    // The first caller hears what its retry will: unknown, do not repeat.
    assertThat(first.tallyCode()).as(first.body()).isEqualTo("OUTCOME_UNKNOWN");
    assertThat(first.result().at("/structuredContent/tally/retryable").asBoolean()).isFalse();
    McpClient.Answer retry =
        agent.call(tally.mcp, 2, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(retry.tallyCode()).as(retry.body()).isEqualTo("OUTCOME_UNKNOWN");
    McpClient.Answer again =
        agent.call(tally.mcp, 3, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(again.tallyCode()).isEqualTo("OUTCOME_UNKNOWN");
    assertThat(upstream.receipts(title)).hasSize(1);
  }
}
