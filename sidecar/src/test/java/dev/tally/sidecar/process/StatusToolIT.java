package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.sidecar.process.CountingUpstream.Script;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Status tools through the sidecar (issue 18): after an unknown outcome of a {@code status_check}
 * tool, the retry is answered from the configured {@code statusTool}, which the sidecar calls
 * upstream itself on the retrying caller's credential; the found result is replayed and nothing
 * runs twice.
 */
class StatusToolIT {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension
  static final CountingUpstreamExtension UPSTREAM = new CountingUpstreamExtension();

  private final CountingUpstream upstream = UPSTREAM.get();
  private final McpClient agent = new McpClient("Bearer status-agent-token-0123");
  private final List<String> log = new CopyOnWriteArrayList<>();
  @TempDir Path dir;
  private InJvmTally tally;

  @AfterEach
  void stop() throws Exception {
    if (tally != null) {
      tally.close();
    }
    agent.close();
  }

  @Test
  void theRetryAfterAnUnknownOutcomeGetsWhatTheStatusToolFound() throws Exception {
    tally =
        InJvmTally.start(
            dir,
            upstream.url(),
            "tools:\n  create_ticket:\n    class: status_check\n    statusTool: "
                + CountingUpstream.STATUS
                + "\n  "
                + CountingUpstream.STATUS
                + ":\n    class: read_only\n",
            log::add);
    String title = "status-" + UUID.randomUUID();
    upstream.script(title, Script.RESET);
    McpClient.Answer first =
        agent.call(tally.mcp, 1, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(first.tallyCode()).as(first.body()).isEqualTo("OUTCOME_UNKNOWN");
    assertThat(upstream.sideEffects(title)).isOne();
    int before = upstream.statusLookups.get();

    McpClient.Answer retry =
        agent.call(tally.mcp, 2, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(retry.isToolResult()).as(retry.body()).isTrue();
    assertThat(retry.result().path("content").path(0).path("text").asText())
        .isEqualTo("found ticket for " + title);
    assertThat(retry.replay().path("executionId").asText())
        .isEqualTo(upstream.receipts(title).get(0).executionId());
    assertThat(upstream.statusLookups.get() - before).isOne();
    assertThat(upstream.sideEffects(title)).as("nothing ran twice").isOne();

    McpClient.Answer again =
        agent.call(tally.mcp, 3, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(again.isToolResult()).isTrue();
    assertThat(upstream.statusLookups.get() - before).as("settled: no second lookup").isOne();
    java.nio.file.Path activity = dir.resolve("journal").resolve("audit").resolve("activity.jsonl");
    Poll.until(
        WAIT, () -> read(activity).contains("\"type\":\"status_lookup\""), () -> read(activity));
    assertThat(read(activity))
        .as("the lookup and its answer are in the audit chain")
        .contains("\"answer\":\"completed\"")
        .contains("\"status_tool\":\"" + CountingUpstream.STATUS + "\"")
        .doesNotContain(title);
  }

  @Test
  void theStatusToolGetsTheCallsMappedArgumentsFromTheRetry() throws Exception {
    tally =
        InJvmTally.start(
            dir,
            upstream.url(),
            "tools:\n  create_ticket:\n    class: status_check\n    statusTool: "
                + CountingUpstream.STATUS
                + "\n    statusExecutionIdArgument: operation\n"
                + "    statusArguments: {about: /title}\n  "
                + CountingUpstream.STATUS
                + ":\n    class: read_only\n",
            log::add);
    String title = "mapped-" + UUID.randomUUID();
    upstream.script(title, Script.RESET);
    McpClient.Answer first =
        agent.call(tally.mcp, 1, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(first.tallyCode()).as(first.body()).isEqualTo("OUTCOME_UNKNOWN");
    String id = upstream.receipts(title).get(0).executionId();
    upstream.statusArguments.clear();

    McpClient.Answer retry =
        agent.call(tally.mcp, 2, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(retry.isToolResult()).as(retry.body()).isTrue();
    assertThat(retry.result().path("content").path(0).path("text").asText())
        .isEqualTo("found ticket for " + title);
    assertThat(upstream.statusArguments).hasSize(1);
    assertThat(upstream.statusArguments.get(0).toString())
        .isEqualTo("{\"operation\":\"" + id + "\",\"about\":\"" + title + "\"}");
    assertThat(upstream.sideEffects(title)).as("nothing ran twice").isOne();
  }

  private static String read(java.nio.file.Path p) {
    try {
      return java.nio.file.Files.readString(p);
    } catch (java.io.IOException e) {
      return "";
    }
  }
}
