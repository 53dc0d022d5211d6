package dev.tally.core.audit;

import static dev.tally.core.audit.Fixtures.T0;
import static dev.tally.core.audit.Fixtures.accepted;
import static dev.tally.core.audit.Fixtures.activity;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditJournalsTest {
  @TempDir Path dir;
  final MutableClock clock = new MutableClock(T0);

  private AuditJournals open() {
    return AuditJournals.open(dir, Fixtures.options(clock));
  }

  private AuditJournals open(AuditOptions options) {
    return AuditJournals.open(dir, options);
  }

  private List<JsonNode> entries(Path file) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      out.add(EntryCodec.STRICT.readTree(line));
    }
    return out;
  }

  private AuditVerification verify() {
    return Fixtures.verifier().verify(dir, Optional.empty());
  }

  @Test
  void roundTripWritesChainedEntriesThatVerify() throws IOException {
    try (AuditJournals j = open()) {
      Execution e =
          Fixtures.happyPath(j, accepted("alice", "refund", "hmac-sha256:k1:aa", T0), true);
      j.retry(e, RetryOutcome.REPLAYED, SessionRef.run("run-7"), T0.plusSeconds(1));
      j.session(new SessionSeen(SessionRef.run("run-7"), "alice", "agent", "1.0", null, T0));
    }

    AuditVerification v = verify();
    assertThat(v.outcome()).isEqualTo(AuditVerification.Outcome.OK);
    assertThat(v.message()).isEqualTo("ok: 7 entries, 2 checkpoints");
    assertThat(v.exitCode(false)).isZero();

    List<JsonNode> activity = entries(activity(dir));
    assertThat(activity).hasSize(7);
    assertThat(activity.get(0).get("seq").asLong()).isEqualTo(1);
    assertThat(activity.get(0).get("prev").asText()).isEqualTo(Hashes.ZERO_HASH);
    assertThat(activity.get(1).get("prev").asText())
        .isEqualTo(activity.get(0).get("hash").asText());
    JsonNode dispatched = activity.get(2);
    assertThat(dispatched.get("v").asInt()).isEqualTo(1);
    assertThat(dispatched.get("type").asText()).isEqualTo("transition");
    assertThat(dispatched.get("state").asText()).isEqualTo("dispatched");
    assertThat(dispatched.get("from").asText()).isEqualTo("authorized");
    assertThat(dispatched.get("at").asText()).isEqualTo(T0.plusMillis(5).toString());
    assertThat(dispatched.get("owner").asText()).isEqualTo("sidecar-1");
    assertThat(dispatched.get("target").asText()).isEqualTo("billing-api");
    assertThat(dispatched.get("summary").asText()).isEqualTo("{amount:number,currency:string}");
    assertThat(activity.get(3).get("target_status").asInt()).isEqualTo(200);
    assertThat(activity.get(5).get("outcome").asText()).isEqualTo("replayed");
    JsonNode checkpoint = activity.get(6);
    assertThat(checkpoint.get("type").asText()).isEqualTo("checkpoint");
    assertThat(checkpoint.get("covers_seq").asLong()).isEqualTo(6);
    assertThat(checkpoint.get("covers_hash").asText())
        .isEqualTo(activity.get(5).get("hash").asText());

    List<JsonNode> sessions = entries(dir.resolve(AuditFiles.SESSIONS));
    assertThat(sessions.get(0).get("session").asText()).isEqualTo("run:run-7");
    assertThat(sessions.get(0).get("event").asText()).isEqualTo("first_seen");
    assertThat(sessions.get(0).get("client_name").asText()).isEqualTo("agent");
  }

  @Test
  void checkpointIsSignedEveryNEntries() throws IOException {
    try (AuditJournals j = open(Fixtures.options(clock).withCheckpointEvery(3))) {
      for (int i = 0; i < 7; i++) {
        j.transition(null, accepted("alice", "t", "fp" + i, T0));
      }
      j.flush();
      List<JsonNode> lines = entries(activity(dir));
      assertThat(lines)
          .extracting(n -> n.get("type").asText())
          .containsExactly(
              "transition",
              "transition",
              "transition",
              "checkpoint",
              "transition",
              "transition",
              "transition",
              "checkpoint",
              "transition");
      AuditVerification running = verify();
      assertThat(running.outcome()).isEqualTo(AuditVerification.Outcome.TAIL);
      assertThat(running.message()).contains("activity.jsonl: 1 entry after the last checkpoint");
      assertThat(running.exitCode(false)).isEqualTo(1);
      assertThat(running.exitCode(true)).isZero();
    }
    assertThat(verify().message()).isEqualTo("ok: 7 entries, 3 checkpoints");
  }

  @Test
  void checkpointIsSignedOnceTheOldestUnsignedEntryReachesTheInterval() throws IOException {
    try (AuditJournals j =
        open(Fixtures.options(clock).withCheckpointInterval(Duration.ofSeconds(60)))) {
      j.transition(null, accepted("alice", "t", "fp1", T0));
      clock.advance(Duration.ofSeconds(59));
      j.checkpointIfDue();
      j.flush();
      assertThat(entries(activity(dir))).hasSize(1);

      clock.advance(Duration.ofSeconds(1));
      j.checkpointIfDue();
      j.flush();
      assertThat(entries(activity(dir))).hasSize(2);

      j.transition(null, accepted("alice", "t", "fp2", clock.instant()));
      clock.advance(Duration.ofSeconds(61));
      j.transition(null, accepted("alice", "t", "fp3", clock.instant()));
      j.flush();
      List<JsonNode> lines = entries(activity(dir));
      assertThat(lines).hasSize(5);
      assertThat(lines.get(4).get("type").asText()).isEqualTo("checkpoint");
      assertThat(lines.get(4).get("at").asText()).isEqualTo(clock.instant().toString());
    }
  }

  @Test
  void entriesReachTheFileOnlyOnFlush() throws IOException {
    try (AuditJournals j = open()) {
      j.transition(null, accepted("alice", "t", "fp", T0));
      assertThat(Files.size(activity(dir))).isZero();
      j.flush();
      assertThat(entries(activity(dir))).hasSize(1);
    }
  }

  @Test
  void pendingBytesAboveTheLimitAreFlushedInTheBackgroundNotByTheAppender() throws Exception {
    List<Runnable> handedOff = new ArrayList<>();
    Relief relief = new Relief(handedOff::add);
    try (AuditJournals j =
        AuditJournals.open(dir, Fixtures.options(clock).withMaxPendingBytes(300), relief)) {
      // An entry here is ~470 bytes: one is above the limit, two are below the appender's own.
      j.transition(null, accepted("alice", "t", "fp1", T0));
      j.transition(null, accepted("bob", "t", "fp2", T0));
      // The appender (an event loop, in the sidecar) wrote nothing: it handed one flush over.
      assertThat(Files.size(activity(dir))).isZero();
      assertThat(handedOff).hasSize(1);

      handedOff.get(0).run();
      assertThat(entries(activity(dir))).hasSize(2);
      j.transition(null, accepted("carol", "t", "fp3", T0));
      assertThat(handedOff).hasSize(2);
    }
  }

  @Test
  void anAppenderFlushesItselfOnlyWhenTheBackgroundFallsFarBehind() throws IOException {
    List<Runnable> neverRun = new ArrayList<>();
    int limit = 4096;
    try (AuditJournals j =
        AuditJournals.open(
            dir, Fixtures.options(clock).withMaxPendingBytes(limit), new Relief(neverRun::add))) {
      int appended = 0;
      while (Files.size(activity(dir)) == 0) {
        j.transition(null, accepted("alice", "t", "fp" + appended, T0));
        appended++;
        assertThat(appended).as("entries appended before the appender flushed").isLessThan(1000);
      }
      assertThat(neverRun).hasSize(1);
      // It waited for four times the limit: bounded memory, and the relief got its chance first.
      assertThat(Files.size(activity(dir)))
          .isGreaterThanOrEqualTo((long) Journal.HARD_LIMIT_FACTOR * limit);
      assertThat(entries(activity(dir))).hasSize(appended);
    }
  }

  @Test
  void theBackgroundFlushRunsOnItsOwnThread() throws Exception {
    try (AuditJournals j = open(Fixtures.options(clock).withMaxPendingBytes(300))) {
      j.transition(null, accepted("alice", "t", "fp", T0));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (Files.size(activity(dir)) == 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(entries(activity(dir))).hasSize(1);
      assertThat(Thread.getAllStackTraces().keySet())
          .extracting(Thread::getName)
          .contains(Relief.THREAD_NAME);
    }
  }

  @Test
  void secondWriterOnTheSameDirectoryIsRefused() {
    AuditJournals first = open();
    try {
      assertThatThrownBy(this::open)
          .isInstanceOfSatisfying(
              AuditException.class, e -> assertThat(e.code()).isEqualTo(AuditException.Code.LOCKED))
          .hasMessageContaining("another writer holds audit.lock");
    } finally {
      first.close();
    }
    open().close();
  }

  @Test
  void reopeningContinuesTheChain() throws IOException {
    try (AuditJournals j = open()) {
      j.transition(null, accepted("alice", "t", "fp1", T0));
    }
    try (AuditJournals j = open()) {
      j.transition(null, accepted("bob", "t", "fp2", T0));
    }
    assertThat(verify().message()).isEqualTo("ok: 2 entries, 2 checkpoints");
    assertThat(entries(activity(dir)))
        .extracting(n -> n.get("seq").asLong())
        .containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void startAfterACrashSignsTheUnsignedTailAndMovesATornLineAside(@TempDir Path crashed)
      throws IOException {
    try (AuditJournals j = open()) {
      Fixtures.happyPath(j, accepted("alice", "t", "fp", T0), true);
      j.flush();
      copyDirectory(dir, crashed);
    }
    byte[] torn = "{\"actor\":\"alice\",\"at\":\"2025-06".getBytes(StandardCharsets.UTF_8);
    long tornAt = Files.size(crashed.resolve(AuditFiles.ACTIVITY));
    Files.write(
        crashed.resolve(AuditFiles.ACTIVITY), torn, java.nio.file.StandardOpenOption.APPEND);

    AuditVerification before = Fixtures.verifier().verify(crashed, Optional.empty());
    assertThat(before.outcome()).isEqualTo(AuditVerification.Outcome.TAIL);
    assertThat(before.message())
        .isEqualTo(
            "tail: 5 entries, 0 checkpoints; activity.jsonl: 5 entries after the last checkpoint"
                + " not yet signed; activity.jsonl: torn last line at byte "
                + tornAt
                + " ("
                + torn.length
                + " bytes)");

    AuditJournals.open(crashed, Fixtures.options(clock)).close();

    assertThat(Fixtures.verifier().verify(crashed, Optional.empty()).message())
        .isEqualTo("ok: 5 entries, 1 checkpoints");
    Path aside = crashed.resolve(AuditFiles.ACTIVITY + ".torn-" + tornAt + "-" + clock.millis());
    assertThat(Files.readAllBytes(aside)).isEqualTo(torn);
  }

  @Test
  void aJournalThatIsOnlyATornLineStartsOverEmpty() throws IOException {
    open().close();
    Files.write(activity(dir), "{\"actor\":\"al".getBytes(StandardCharsets.UTF_8));
    open().close();
    assertThat(Files.size(activity(dir))).isZero();
    assertThat(verify().message()).isEqualTo("ok: 0 entries, 0 checkpoints");
  }

  @Test
  void aJournalThatDoesNotVerifyFromItsLastCheckpointIsNotExtended(@TempDir Path crashed)
      throws IOException {
    try (AuditJournals j = open()) {
      Fixtures.happyPath(j, accepted("alice", "t", "fp", T0), true);
      j.flush();
      copyDirectory(dir, crashed);
    }
    Path file = crashed.resolve(AuditFiles.ACTIVITY);
    String text = Files.readString(file).replace("\"state\":\"delivered\"", "\"state\":\"failed\"");
    Files.writeString(file, text);

    assertThatThrownBy(() -> AuditJournals.open(crashed, Fixtures.options(clock)))
        .isInstanceOfSatisfying(
            AuditException.class, e -> assertThat(e.code()).isEqualTo(AuditException.Code.CORRUPT))
        .hasMessageContaining("entry seq 5 at byte")
        .hasMessageContaining("hash does not match");
    assertThat(Files.readString(file)).isEqualTo(text);
  }

  @Test
  void journalsWithoutTheirSigningKeyAreRefused() throws IOException {
    try (AuditJournals j = open()) {
      j.transition(null, accepted("alice", "t", "fp", T0));
    }
    Files.delete(dir.resolve(AuditFiles.SIGNING_KEY));
    assertThatThrownBy(this::open)
        .isInstanceOfSatisfying(
            AuditException.class, e -> assertThat(e.code()).isEqualTo(AuditException.Code.KEY))
        .hasMessageContaining("audit-signing.key: missing, but the journals");
  }

  @Test
  void signingKeyIsOwnerOnlyAndThePublicKeyFileNamesIt() throws IOException {
    AuditPublicKey key;
    try (AuditJournals j = open()) {
      key = j.publicKey();
    }
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve(AuditFiles.SIGNING_KEY))))
        .isEqualTo("rw-------");
    String text = Files.readString(dir.resolve(AuditFiles.PUBLIC_KEY));
    assertThat(text).contains("\n" + key.line() + "\n");
    assertThat(key.line()).startsWith("tally-audit-key-v1 ed25519 " + key.keyId() + " ");
    assertThat(AuditPublicKey.read(dir.resolve(AuditFiles.PUBLIC_KEY))).isEqualTo(key);
    try (AuditJournals j = open()) {
      assertThat(j.publicKey()).isEqualTo(key);
    }
  }

  /**
   * The journals name actors, tools and targets: the directory and every file in it are the owner's
   * only (0700 / 0600) from the moment they exist, whatever the umask; only the public key, meant
   * for verifiers, is world-readable.
   */
  @Test
  void theDirectoryAndEveryFileButThePublicKeyAreCreatedOwnerOnly() throws IOException {
    assumeTrue(dir.getFileSystem().supportedFileAttributeViews().contains("posix"));
    Path nested = dir.resolve("data").resolve("audit");
    try (AuditJournals j = AuditJournals.open(nested, Fixtures.options(clock))) {
      Fixtures.happyPath(j, accepted("alice", "refund", "hmac-sha256:k1:aa", T0), true);
      j.session(new SessionSeen(SessionRef.run("run-7"), "alice", "agent", "1.0", null, T0));
    }
    for (Path d : List.of(dir.resolve("data"), nested)) {
      assertThat(mode(d)).as(d.toString()).isEqualTo("rwx------");
    }
    for (String f :
        List.of(
            AuditFiles.ACTIVITY, AuditFiles.SESSIONS, AuditFiles.LOCK, AuditFiles.SIGNING_KEY)) {
      assertThat(mode(nested.resolve(f))).as(f).isEqualTo("rw-------");
    }
    assertThat(mode(nested.resolve(AuditFiles.PUBLIC_KEY))).isEqualTo("rw-r--r--");
  }

  private static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  @Test
  void aSigningKeyOthersCanReadIsRefused() throws IOException {
    open().close();
    Files.setPosixFilePermissions(
        dir.resolve(AuditFiles.SIGNING_KEY), PosixFilePermissions.fromString("rw-r--r--"));
    assertThatThrownBy(this::open)
        .isInstanceOfSatisfying(
            AuditException.class, e -> assertThat(e.code()).isEqualTo(AuditException.Code.KEY))
        .hasMessageContaining("mode rw-r--r-- lets others read the signing key");
  }

  @Test
  void aPublicKeyFileOfAnotherKeyIsRefused() throws IOException {
    open().close();
    Files.writeString(
        dir.resolve(AuditFiles.PUBLIC_KEY), SigningKey.generate().publicKey().toText());
    assertThatThrownBy(this::open)
        .isInstanceOfSatisfying(
            AuditException.class, e -> assertThat(e.code()).isEqualTo(AuditException.Code.KEY))
        .hasMessageContaining("does not match audit-signing.key");
  }

  @Test
  void heartbeatsAreNotRecordedButTakeOversAndInputRequestsAre() throws IOException {
    try (AuditJournals j = open()) {
      Execution e = accepted("alice", "t", "fp", T0);
      j.transition(null, e);
      Execution d =
          e.apply(
              dev.tally.core.execution.Transition.to(e, ExecutionState.DISPATCHED, T0)
                  .withLease(new Lease("a", T0.plusSeconds(10))));
      j.transition(e, d);
      Execution beat = d.withLease(new Lease("a", T0.plusSeconds(20)));
      j.transition(d, beat);
      Execution takenOver = beat.withLease(new Lease("b", T0.plusSeconds(30)));
      j.transition(beat, takenOver);
      j.flush();
      assertThat(entries(activity(dir)))
          .extracting(n -> n.get("owner") == null ? "-" : n.get("owner").asText())
          .containsExactly("-", "a", "b");
    }
  }

  @Test
  void sessionsAreRecordedOnFirstSightOnChangesAndAfterTheUpdateInterval() throws IOException {
    AuditOptions options = Fixtures.options(clock).withSessionUpdateInterval(Duration.ofMinutes(5));
    SessionRef s = SessionRef.mcpSession("raw-session-id");
    try (AuditJournals j = open(options)) {
      j.session(new SessionSeen(s, "alice", "claude", "1.0", "2025-06-18", T0));
      j.session(SessionSeen.of(s, "alice", T0.plusSeconds(10)));
      j.session(SessionSeen.of(s, "alice", T0.plusSeconds(20)));
      j.session(new SessionSeen(s, "alice", "claude", "1.1", null, T0.plusSeconds(30)));
      j.session(SessionSeen.of(s, "alice", T0.plusSeconds(330)));
      j.session(SessionSeen.of(s, "alice", T0.plusSeconds(400)));
    }
    List<JsonNode> lines = entries(dir.resolve(AuditFiles.SESSIONS));
    assertThat(lines)
        .extracting(n -> n.get("type").asText() + ":" + n.path("event").asText())
        .containsExactly(
            "session:first_seen",
            "session:updated",
            "session:updated",
            "session:updated",
            "checkpoint:");
    assertThat(lines.get(1).get("client_version").asText()).isEqualTo("1.1");
    assertThat(lines.get(2).get("last_seen").asText()).isEqualTo(T0.plusSeconds(330).toString());
    assertThat(lines.get(3).get("last_seen").asText()).isEqualTo(T0.plusSeconds(400).toString());
    assertThat(lines.get(3).get("first_seen").asText()).isEqualTo(T0.toString());
    assertThat(lines.get(3).get("kind").asText()).isEqualTo("mcp_session");
    assertThat(lines.get(0).get("session").asText()).isEqualTo(s.journalValue()).startsWith("mcp:");
  }

  @Test
  void manyThreadsAppendToOneChain() throws Exception {
    int threads = 4;
    int each = 150;
    try (AuditJournals j = open(Fixtures.options(clock).withCheckpointEvery(50))) {
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < each; i++) {
                    j.transition(null, accepted("actor-" + id, "t", "fp-" + id + "-" + i, T0));
                    j.session(SessionSeen.of(SessionRef.run("run-" + id + "-" + i), "a", T0));
                    if (i % 40 == 0) {
                      j.flush();
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
      pool.shutdown();
    }
    AuditVerification v = verify();
    assertThat(v.outcome()).isEqualTo(AuditVerification.Outcome.OK);
    assertThat(v.entries()).isEqualTo(2L * threads * each);
    assertThat(v.journals().get(0).checkpoints()).isEqualTo(threads * each / 50);
  }

  @Test
  void closedJournalsRefuseEntries() {
    AuditJournals j = open();
    j.close();
    assertThatThrownBy(() -> j.transition(null, accepted("alice", "t", "fp", T0)))
        .isInstanceOfSatisfying(
            AuditException.class, e -> assertThat(e.code()).isEqualTo(AuditException.Code.CLOSED));
  }

  static void copyDirectory(Path from, Path to) throws IOException {
    try (var files = Files.list(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (!f.getFileName().toString().equals(AuditFiles.LOCK)) {
          Files.copy(
              f, to.resolve(f.getFileName()), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }
}
