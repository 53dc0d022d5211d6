package dev.tally.core.store.journal;

import static dev.tally.core.testing.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.Claim;
import dev.tally.core.store.StoreException;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Recovery from what a crash or a bad disk leaves behind. */
class JournalRecoveryTest {
  @TempDir Path dir;
  private final MutableClock clock = MutableClock.create();
  private JournalExecutionStore store;
  private Path segment;

  @BeforeEach
  void setUp() {
    segment = dir.resolve("journal-00000000000000000001.log");
  }

  @AfterEach
  void tearDown() {
    if (store != null) {
      store.close();
    }
  }

  /** Without preallocation, so that a segment's size is where its last frame ends. */
  private JournalExecutionStore open() {
    return JournalExecutionStore.open(
        JournalOptions.defaults(dir).withClock(clock).withPreallocation(0));
  }

  private Execution claim(JournalExecutionStore s) {
    clock.advance(Duration.ofMillis(1));
    Claim c = await(s.claim(Executions.candidate(clock).build(), clock.instant()));
    return c.execution();
  }

  /** Writes {@code n} records, one frame each; returns them and the end offset of each frame. */
  private List<Execution> write(int n, List<Long> ends) throws IOException {
    store = open();
    List<Execution> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(claim(store));
      ends.add(Files.size(segment));
    }
    store.halt();
    store = null;
    return out;
  }

  private void assertPresent(JournalExecutionStore s, List<Execution> expected) {
    for (Execution e : expected) {
      assertThat(await(s.find(e.id()))).contains(e);
    }
  }

  @Test
  void tornTailAtEveryOffsetOfTheLastRecordIsTruncatedKeepingAllBefore() throws IOException {
    List<Long> ends = new ArrayList<>();
    List<Execution> written = write(4, ends);
    List<Execution> before = written.subList(0, 3);
    Execution last = written.get(3);
    long lastStart = ends.get(2);
    byte[] full = Files.readAllBytes(segment);
    assertThat((long) full.length).isEqualTo(ends.get(3));

    for (int cut = (int) lastStart; cut < full.length; cut++) {
      cutAt(full, cut);
      try (LogCapture logs = LogCapture.start()) {
        JournalExecutionStore s = open();
        try {
          assertPresent(s, before);
          assertThat(await(s.find(last.id()))).as("cut at %d", cut).isEmpty();
          if (cut == lastStart) {
            assertThat(logs.warnings()).isEmpty();
          } else {
            long torn = cut - lastStart;
            assertThat(logs.warnings())
                .as("cut at %d", cut)
                .singleElement()
                .satisfies(
                    m -> {
                      assertThat(m).contains("torn tail at byte " + lastStart);
                      assertThat(m).contains(torn + " bytes").doesNotContain("\n");
                    });
          }
          assertThat(Files.size(segment)).isEqualTo(lastStart);
        } finally {
          s.close();
        }
      }
    }
  }

  @Test
  void truncatedJournalAcceptsNewRecordsAfterTheCut() throws IOException {
    List<Long> ends = new ArrayList<>();
    List<Execution> written = write(2, ends);
    byte[] full = Files.readAllBytes(segment);
    Files.write(segment, Arrays.copyOf(full, full.length - 3));

    store = open();
    Execution next = claim(store);
    store.halt();
    store = open();

    assertPresent(store, List.of(written.get(0), next));
    assertThat(await(store.find(written.get(1).id()))).isEmpty();
  }

  @Test
  void bitFlipInTheLastRecordIsTruncatedAsATornTail() throws IOException {
    List<Long> ends = new ArrayList<>();
    List<Execution> written = write(3, ends);
    flip(segment, ends.get(1) + 40);

    try (LogCapture logs = LogCapture.start()) {
      store = open();
      assertThat(logs.warnings())
          .singleElement()
          .asString()
          .contains("torn tail at byte " + ends.get(1));
    }
    assertPresent(store, written.subList(0, 2));
    assertThat(await(store.find(written.get(2).id()))).isEmpty();
  }

  @Test
  void bitFlipInAMiddleRecordRefusesToStartNamingTheOffset() throws IOException {
    List<Long> ends = new ArrayList<>();
    write(4, ends);
    long middle = ends.get(1);
    flip(segment, middle + 60);
    byte[] damaged = Files.readAllBytes(segment);

    assertThatThrownBy(this::open)
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.code()).isEqualTo(StoreException.Code.CORRUPT))
        .hasMessageContaining(segment.toString())
        .hasMessageContaining("at byte " + middle)
        .hasMessageContaining("followed by a valid frame at byte " + ends.get(2));
    assertThat(Files.readAllBytes(segment)).as("nothing truncated").isEqualTo(damaged);
    // The refusal released the directory: a repaired journal opens.
    flip(segment, middle + 60);
    store = open();
  }

  @Test
  void corruptLengthInAMiddleFrameRefusesToStart() throws IOException {
    List<Long> ends = new ArrayList<>();
    write(3, ends);
    flip(segment, ends.get(0) + 1); // a high bit of the first frame's length: past the end

    assertThatThrownBy(this::open)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("at byte " + ends.get(0))
        .hasMessageContaining("followed by a valid frame");
  }

  @Test
  void unfinishedFilesAreDeletedAndOtherFilesLeftAlone() throws IOException {
    List<Long> ends = new ArrayList<>();
    List<Execution> written = write(1, ends);
    Files.writeString(dir.resolve("journal-00000000000000000002.log.tmp"), "TLY");
    Files.writeString(dir.resolve("snapshot-00000000000000000001.snap.tmp"), "partial");
    Files.writeString(dir.resolve("hmac.keys"), "k1");
    Files.writeString(dir.resolve("hmac.keys.tmp"), "k2");

    store = open();

    assertPresent(store, written);
    assertThat(JournalFixture.fileNames(dir))
        .containsExactly(
            "hmac.keys", "hmac.keys.tmp", "journal-00000000000000000001.log", "tally.lock");
  }

  @Test
  void badHeaderRefusesToStart() throws IOException {
    write(1, new ArrayList<>());
    flip(segment, 0);

    assertThatThrownBy(this::open)
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.code()).isEqualTo(StoreException.Code.CORRUPT))
        .hasMessageContaining("at byte 0")
        .hasMessageContaining("bad magic");
  }

  @Test
  void missingSegmentRefusesToStart() throws IOException {
    store = open();
    claim(store);
    await(store.compactNow());
    claim(store);
    store.halt();
    Files.move(
        dir.resolve("journal-00000000000000000002.log"),
        dir.resolve("journal-00000000000000000003.log"));

    assertThatThrownBy(this::open)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("missing journal-00000000000000000002.log");
    store = null;
  }

  @Test
  void dispatchedExecutionsBecomeOutcomeUnknownDurablyOnReopen() {
    store = open();
    Execution dispatched = reach(ExecutionState.DISPATCHED);
    Execution mrtr = reach(ExecutionState.DISPATCHED);
    Execution awaiting = await(store.touch(mrtr.id(), mrtr.version(), mrtr.lease(), true));
    Execution authorized = reach(ExecutionState.AUTHORIZED);
    store.halt();
    clock.advance(Duration.ofMinutes(5));

    try (LogCapture logs = LogCapture.start()) {
      store = open();
      assertThat(logs.warnings()).singleElement().asString().contains("1 execution(s)");
    }
    Execution unknown = await(store.find(dispatched.id())).orElseThrow();
    assertThat(unknown.state()).isEqualTo(ExecutionState.OUTCOME_UNKNOWN);
    assertThat(unknown.version()).isEqualTo(dispatched.version() + 1);
    assertThat(unknown.lease()).isNull();
    assertThat(unknown.at(ExecutionState.OUTCOME_UNKNOWN)).isEqualTo(clock.instant());
    assertThat(await(store.find(awaiting.id()))).contains(awaiting);
    assertThat(await(store.find(authorized.id()))).contains(authorized);
    assertThat(store.settledAtOpen())
        .as("reported for the audit trail")
        .containsExactly(new JournalExecutionStore.Settled(dispatched, unknown));

    store.halt();
    try (LogCapture logs = LogCapture.start()) {
      store = open();
      assertThat(logs.warnings()).as("already recorded").isEmpty();
    }
    assertThat(await(store.find(dispatched.id()))).contains(unknown);
    assertThat(store.settledAtOpen()).isEmpty();
  }

  private Execution reach(ExecutionState target) {
    Execution e = claim(store);
    List<ExecutionState> path =
        target == ExecutionState.AUTHORIZED
            ? List.of(ExecutionState.AUTHORIZED)
            : List.of(ExecutionState.AUTHORIZED, ExecutionState.DISPATCHED);
    for (ExecutionState s : path) {
      Transition t = Transition.to(e, s, clock.instant());
      if (s == ExecutionState.DISPATCHED) {
        t = t.withLease(new Lease("owner-a", clock.instant().plusSeconds(30)));
      }
      e = await(store.transition(t));
    }
    return e;
  }

  @Test
  void recordsWithUnknownAndMissingOptionalFieldsAreRead() throws IOException {
    String id = "act_01KJMA0FM0DJABFYAVNTBYYWMN";
    String doc =
        "{\"v\":1,\"id\":\""
            + id
            + "\",\"version\":2,\"matchKey\":\"k\",\"matchKind\":\"idempotency_key\","
            + "\"actor\":\"a\",\"tool\":\"t\",\"toolClass\":\"keyed\",\"fingerprint\":\"f\","
            + "\"intentScope\":\"s\",\"state\":\"authorized\",\"holdUntil\":\"2026-03-01T10:00:00Z\","
            + "\"retainUntil\":\"2026-03-02T10:00:00Z\",\"lease\":null,\"addedLater\":{\"x\":[1]}}";
    FrameBuffer frame = new FrameBuffer(256);
    frame.begin();
    byte[] json = doc.getBytes(StandardCharsets.UTF_8);
    frame.write(RecordCodec.TYPE_PUT);
    frame.putInt(json.length);
    frame.write(json, 0, json.length);
    frame.putInt(-1);
    frame.finish();
    try (FileChannel ch =
        FileChannel.open(segment, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(JournalFormat.header(JournalFormat.KIND_SEGMENT, 1));
      ch.write(ByteBuffer.wrap(frame.array(), 0, frame.size()));
    }

    store = open();
    Execution e = await(store.find(ExecutionId.parse(id))).orElseThrow();
    assertThat(e.version()).isEqualTo(2);
    assertThat(e.state()).isEqualTo(ExecutionState.AUTHORIZED);
    assertThat(e.lease()).isNull();
    assertThat(e.timeline()).isEmpty();
    assertThat(e.summary()).isEmpty();
    assertThat(e.awaitingInput()).isFalse();
    Execution moved =
        await(store.transition(Transition.to(e, ExecutionState.DISPATCHED, clock.instant())));
    assertThat(moved.version()).isEqualTo(3);
  }

  @Test
  void aFormatOneJournalIsReadAndContinuedInANewFormatTwoSegment() throws IOException {
    List<Execution> old = new ArrayList<>();
    FrameBuffer frame = new FrameBuffer(256);
    frame.begin();
    for (int i = 0; i < 3; i++) {
      clock.advance(Duration.ofMillis(1));
      Execution e = Executions.candidate(clock).build();
      old.add(e);
      RecordCodec.encodeJson(new JournalEntry.Put(e, null), frame);
    }
    frame.finish();
    try (FileChannel ch =
        FileChannel.open(segment, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(JournalFormat.header(1, JournalFormat.KIND_SEGMENT, 1));
      ch.write(ByteBuffer.wrap(frame.array(), 0, frame.size()));
    }
    long oldSize = Files.size(segment);

    store = open();
    assertPresent(store, old);
    Execution moved =
        await(
            store.transition(
                Transition.to(old.get(0), ExecutionState.AUTHORIZED, clock.instant())));
    Execution added = claim(store);

    assertThat(Files.size(segment)).as("the format 1 segment is not extended").isEqualTo(oldSize);
    Path next = dir.resolve("journal-00000000000000000002.log");
    ByteBuffer header = ByteBuffer.allocate(JournalFormat.HEADER_BYTES);
    try (FileChannel ch = FileChannel.open(next, StandardOpenOption.READ)) {
      JournalReader.readFully(ch, header, 0);
    }
    assertThat(JournalFormat.checkHeader(header.flip(), JournalFormat.KIND_SEGMENT, 2)).isNull();
    assertThat(JournalFormat.version(header)).isEqualTo(JournalFormat.FORMAT_VERSION);

    await(store.compactNow());
    store.close();
    store = open();
    assertPresent(store, List.of(moved, added, old.get(1), old.get(2)));
  }

  /** The file as a crash at {@code cut} would leave it (rewritten in place, as fast as it gets). */
  private void cutAt(byte[] full, int cut) throws IOException {
    try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(full), 0);
      ch.truncate(cut);
    }
  }

  private static void flip(Path file, long offset) throws IOException {
    byte[] b = Files.readAllBytes(file);
    b[(int) offset] ^= (byte) 0x80;
    Files.write(file, b);
  }
}
