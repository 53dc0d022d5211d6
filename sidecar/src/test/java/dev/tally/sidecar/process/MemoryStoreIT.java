package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --store memory}: the gate works the same (a retry is replayed, not re-executed), the
 * process writes nothing to disk, and it says that nothing survives a restart.
 */
class MemoryStoreIT {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path dir;

  @Test
  void aMemoryStoreReplaysRetriesAndWritesNoFile() throws Exception {
    CountingUpstream upstream = CountingUpstream.start();
    List<String> log = new CopyOnWriteArrayList<>();
    try (McpClient agent = new McpClient();
        InJvmTally tally = InJvmTally.start("memory", upstream.url(), "", log::add)) {
      McpClient.Answer first =
          agent.call(tally.mcp, 1, CountingUpstream.IRREVERSIBLE, "mem-1", null, WAIT);
      assertThat(first.isToolResult()).as(first.body()).isTrue();
      McpClient.Answer retry =
          agent.call(tally.mcp, 2, CountingUpstream.IRREVERSIBLE, "mem-1", null, WAIT);
      assertThat(retry.replay().isMissingNode()).as(retry.body()).isFalse();
      assertThat(upstream.sideEffects("mem-1")).isOne();
    } finally {
      upstream.close();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      assertThat(files.filter(p -> !p.equals(dir)).toList()).as("files written").isEmpty();
    }
    assertThat(String.join("\n", log)).contains("HMAC key generated in memory");
    assertThat(Path.of(".tally")).as("nothing written in the working directory").doesNotExist();
  }
}
