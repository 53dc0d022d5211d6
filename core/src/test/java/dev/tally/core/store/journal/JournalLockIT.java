package dev.tally.core.store.journal;

import static dev.tally.core.testing.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.execution.ExecutionId;
import dev.tally.core.store.StoreException;
import dev.tally.core.testing.MutableClock;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The single-writer guard across processes, and what {@code kill -9} of the holder leaves. */
class JournalLockIT {
  @TempDir Path dir;
  private Process probe;

  @AfterEach
  void tearDown() {
    if (probe != null) {
      probe.destroyForcibly();
    }
  }

  private BufferedReader startProbe() throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    probe =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                LockProbe.class.getName(),
                dir.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    return new BufferedReader(
        new InputStreamReader(probe.getInputStream(), StandardCharsets.UTF_8));
  }

  private JournalExecutionStore open() {
    return JournalExecutionStore.open(
        JournalOptions.defaults(dir).withClock(MutableClock.create()));
  }

  @Test
  void anotherProcessIsRefusedWhileThisOneHoldsTheDirectory() throws Exception {
    try (JournalExecutionStore store = open()) {
      BufferedReader out = startProbe();
      assertThat(out.readLine()).startsWith("REFUSED ").contains("in use by another Tally store");
      assertThat(probe.waitFor(20, TimeUnit.SECONDS)).isTrue();
      assertThat(store.isWritable()).isTrue();
    }
  }

  @Test
  void thisProcessIsRefusedWhileAnotherHoldsItAndTakesOverAfterKillMinus9() throws Exception {
    BufferedReader out = startProbe();
    String line = out.readLine();
    assertThat(line).startsWith("OPENED ");
    ExecutionId written = ExecutionId.parse(line.substring("OPENED ".length()));

    assertThatThrownBy(this::open)
        .isInstanceOfSatisfying(
            StoreException.class,
            e -> assertThat(e.code()).isEqualTo(StoreException.Code.UNAVAILABLE))
        .hasMessageContaining("in use by another Tally store");

    probe.destroyForcibly(); // SIGKILL: no shutdown hook, no close
    assertThat(probe.waitFor(20, TimeUnit.SECONDS)).isTrue();
    try (JournalExecutionStore store = open()) {
      assertThat(await(store.find(written))).isPresent();
    }
  }
}
