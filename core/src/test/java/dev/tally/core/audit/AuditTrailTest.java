package dev.tally.core.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.config.TallyConfig;
import dev.tally.core.runtime.TallyRuntime;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.journal.JournalExecutionStore;
import dev.tally.core.store.journal.JournalOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Opening a store with its audit trail, as the runtime does for both adapters. */
class AuditTrailTest {
  @TempDir Path dir;
  private final List<String> log = new ArrayList<>();

  private TallyConfig journalConfig() {
    return TallyConfig.parse("store: journal:" + dir.resolve("journal"), Map.of());
  }

  private AuditTrail.Opened open(TallyConfig config) {
    return AuditTrail.openStore(
        TallyRuntime.auditDir(config),
        repair ->
            JournalExecutionStore.open(
                JournalOptions.defaults(config.store().journalDir()), repair),
        "upstream-x",
        Clock.systemUTC(),
        log::add);
  }

  @Test
  void aJournalStoreGetsItsAuditJournalsInsideItsDirectory() {
    AuditTrail.Opened opened = open(journalConfig());
    Path audit = dir.resolve("journal").resolve("audit");
    try {
      assertThat(opened.trail().sink()).isNotSameAs(AuditSink.noop());
      assertThat(Files.isRegularFile(audit.resolve(AuditFiles.ACTIVITY))).isTrue();
      assertThat(log).anyMatch(line -> line.contains("audit journals in " + audit));
    } finally {
      opened.store().close();
      opened.trail().close();
    }
  }

  @Test
  void aMemoryStoreGetsNone() {
    TallyConfig memory = TallyConfig.parse("store: memory", Map.of());
    AuditTrail.Opened opened =
        AuditTrail.openStore(
            TallyRuntime.auditDir(memory),
            repair -> {
              assertThat(repair).isNull();
              return dev.tally.core.store.MemoryExecutionStore.create(
                  dev.tally.core.store.MemoryStoreOptions.defaults());
            },
            "upstream-x",
            Clock.systemUTC(),
            log::add);
    try {
      assertThat(opened.trail().sink()).isSameAs(AuditSink.noop());
      assertThat(log).isEmpty();
    } finally {
      opened.store().close();
      opened.trail().close();
    }
  }

  @Test
  void whenTheAuditJournalsCannotOpenTheStoreIsClosedAgain() {
    TallyConfig config = journalConfig();
    // Another writer holds the audit directory: the trail is refused...
    AuditJournals other =
        AuditJournals.open(dir.resolve("journal").resolve("audit"), AuditOptions.defaults());
    try {
      assertThatThrownBy(() -> open(config))
          .isInstanceOfSatisfying(
              AuditException.class,
              e -> assertThat(e.code()).isEqualTo(AuditException.Code.LOCKED));
    } finally {
      other.close();
    }
    // ... and the journal store it had opened was closed again (its directory lock released),
    // so the next start succeeds.
    AuditTrail.Opened opened = open(config);
    ExecutionStore store = opened.store();
    try {
      assertThat(store.isWritable()).isTrue();
    } finally {
      store.close();
      opened.trail().close();
    }
  }

  @Test
  void auditJournalsAnEarlierVersionKeptBesideTheJournalStayThere() throws Exception {
    Path earlier = dir.resolve("audit");
    AuditJournals.open(earlier, AuditOptions.defaults()).close();
    assertThat(TallyRuntime.auditDir(journalConfig())).isEqualTo(earlier.toAbsolutePath());
  }

  @Test
  void auditDirOverridesThePlaceAndIsRefusedForAStoreWithoutJournals() {
    Path elsewhere = dir.resolve("elsewhere");
    TallyConfig c =
        TallyConfig.parse(
            "store: journal:" + dir.resolve("journal") + "\naudit:\n  dir: " + elsewhere, Map.of());
    assertThat(TallyRuntime.auditDir(c)).isEqualTo(elsewhere.toAbsolutePath());
    TallyConfig memory = TallyConfig.parse("store: memory\naudit:\n  dir: " + elsewhere, Map.of());
    assertThatThrownBy(() -> TallyRuntime.auditDir(memory))
        .hasMessageContaining("audit.dir")
        .hasMessageContaining("only with a journal store");
  }
}
