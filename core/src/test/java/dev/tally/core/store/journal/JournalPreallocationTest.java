package dev.tally.core.store.journal;

import static dev.tally.core.testing.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.execution.Execution;
import dev.tally.core.store.Claim;
import dev.tally.core.store.StoreException;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segments that end in zeros the writer allocated ahead of its frames: a zero tail is the clean end
 * of a format 3 segment, anything else after the last frame is still a torn tail or corruption.
 */
class JournalPreallocationTest {
  private static final long CHUNK = 16 * 1024;

  @TempDir Path dir;
  private final MutableClock clock = MutableClock.create();
  private JournalExecutionStore store;

  @AfterEach
  void tearDown() {
    if (store != null) {
      store.close();
    }
  }

  private Path segment(long seq) {
    return dir.resolve(String.format("journal-%020d.log", seq));
  }

  private JournalExecutionStore open() {
    return JournalExecutionStore.open(
        JournalOptions.defaults(dir).withClock(clock).withPreallocation(CHUNK));
  }

  private Execution claim(JournalExecutionStore s) {
    clock.advance(Duration.ofMillis(1));
    Claim c = await(s.claim(Executions.candidate(clock).build(), clock.instant()));
    return c.execution();
  }

  private List<Execution> claim(JournalExecutionStore s, int n) {
    List<Execution> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(claim(s));
    }
    return out;
  }

  private void assertPresent(JournalExecutionStore s, List<Execution> expected) {
    for (Execution e : expected) {
      assertThat(await(s.find(e.id()))).contains(e);
    }
  }

  /** How the segment ends, read as recovery reads it (without changing it). */
  private JournalReader.End end(Path file, long seq) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      return JournalReader.read(ch, file, JournalFormat.KIND_SEGMENT, seq, true, (e, n) -> {});
    }
  }

  private static void writeAt(Path file, long position, byte[] bytes) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      JournalDir.writeFully(ch, ByteBuffer.wrap(bytes), position);
    }
  }

  @Test
  void zerosAfterTheLastFrameAreACleanEndAcrossManyExtensions() throws IOException {
    store = open();
    // Far more than one chunk of records: the writer outruns and re-extends the allocation.
    List<Execution> first = claim(store, 400);
    store.close();
    JournalReader.End end = end(segment(1), 1);
    assertThat(end.validEnd()).isGreaterThan(4 * CHUNK);
    assertThat(end.tornBytes()).isZero();
    assertThat(end.zeroBytes()).as("zeros allocated ahead").isPositive();
    assertThat(Files.size(segment(1))).isEqualTo(end.validEnd() + end.zeroBytes());

    try (LogCapture logs = LogCapture.start()) {
      store = open();
      assertThat(logs.warnings()).as("a zero tail is not a torn tail").isEmpty();
    }
    assertPresent(store, first);
    List<Execution> second = claim(store, 50);
    store.close();
    JournalReader.End after = end(segment(1), 1);
    assertThat(after.validEnd()).as("appended at the records' end").isGreaterThan(end.validEnd());
    assertThat(after.tornBytes()).isZero();

    store = open();
    assertPresent(store, first);
    assertPresent(store, second);
  }

  @Test
  void aCrashKeepsEveryDurableRecordAndItsZeros() throws IOException {
    store = open();
    List<Execution> written = claim(store, 120);
    store.halt();
    try (LogCapture logs = LogCapture.start()) {
      store = open();
      assertThat(logs.warnings()).isEmpty();
    }
    assertPresent(store, written);
  }

  @Test
  void aFrameTornInsideTheZerosIsTruncatedKeepingAllBefore() throws IOException {
    store = open();
    List<Execution> kept = claim(store, 5);
    store.close();
    long cleanEnd = end(segment(1), 1).validEnd();
    byte[] all = Files.readAllBytes(segment(1));
    // The last frame written again after the end, cut halfway: a crash during its write.
    byte[] lastFrame = lastFrame(all, cleanEnd);
    writeAt(segment(1), cleanEnd, Arrays.copyOf(lastFrame, lastFrame.length / 2));

    try (LogCapture logs = LogCapture.start()) {
      store = open();
      assertThat(logs.warnings())
          .singleElement()
          .asString()
          .contains("torn tail at byte " + cleanEnd);
    }
    assertPresent(store, kept);
    assertThat(Files.size(segment(1))).isGreaterThanOrEqualTo(cleanEnd);
    Execution next = claim(store);
    store.halt();
    store = open();
    assertPresent(store, kept);
    assertPresent(store, List.of(next));
  }

  @Test
  void aZeroFrameHeaderFollowedByWrittenBytesIsATornTailNotACleanEnd() throws IOException {
    store = open();
    List<Execution> kept = claim(store, 3);
    store.close();
    long cleanEnd = end(segment(1), 1).validEnd();
    // The page holding the frame header never reached the disk, a later one did.
    writeAt(segment(1), cleanEnd + 700, new byte[] {1, 2, 3});

    JournalReader.End end = end(segment(1), 1);
    assertThat(end.validEnd()).isEqualTo(cleanEnd);
    assertThat(end.zeroBytes()).isZero();
    assertThat(end.tornBytes()).isEqualTo(Files.size(segment(1)) - cleanEnd);
    try (LogCapture logs = LogCapture.start()) {
      store = open();
      assertThat(logs.warnings()).singleElement().asString().contains("torn tail");
    }
    assertPresent(store, kept);
  }

  @Test
  void aValidFrameAfterZerosIsCorruptionNotAnEnd() throws IOException {
    store = open();
    claim(store, 3);
    store.close();
    long cleanEnd = end(segment(1), 1).validEnd();
    byte[] all = Files.readAllBytes(segment(1));
    writeAt(segment(1), cleanEnd + 512, lastFrame(all, cleanEnd));
    byte[] damaged = Files.readAllBytes(segment(1));

    assertThatThrownBy(this::open)
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.code()).isEqualTo(StoreException.Code.CORRUPT))
        .hasMessageContaining("at byte " + cleanEnd)
        .hasMessageContaining("followed by a valid frame at byte " + (cleanEnd + 512));
    assertThat(Files.readAllBytes(segment(1))).as("nothing truncated").isEqualTo(damaged);
  }

  @Test
  void aClosedSegmentEndingInZerosIsReadWhole() throws IOException {
    store = open();
    List<Execution> written = claim(store, 20);
    store.close();
    assertThat(end(segment(1), 1).zeroBytes()).isPositive();
    // A crash right after a roll: segment 1 is closed with its zeros, segment 2 is empty.
    try (FileChannel ch =
        FileChannel.open(segment(2), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(JournalFormat.header(JournalFormat.KIND_SEGMENT, 2));
    }

    store = open();
    assertPresent(store, written);
    Execution next = claim(store);
    await(store.compactNow());
    store.close();
    store = open();
    assertPresent(store, written);
    assertPresent(store, List.of(next));
  }

  @Test
  void aFormatTwoSegmentEndingInZerosKeepsItsOldMeaningATornTail() throws IOException {
    clock.advance(Duration.ofMillis(1));
    Execution e = Executions.candidate(clock).build();
    FrameBuffer frame = new FrameBuffer(256);
    frame.begin();
    RecordCodec.encode(new JournalEntry.Put(e, null), frame);
    frame.finish();
    long frameEnd = JournalFormat.HEADER_BYTES + frame.size();
    try (FileChannel ch =
        FileChannel.open(segment(1), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(JournalFormat.header(2, JournalFormat.KIND_SEGMENT, 1));
      ch.write(ByteBuffer.wrap(frame.array(), 0, frame.size()));
      ch.write(ByteBuffer.allocate(4096));
    }

    try (LogCapture logs = LogCapture.start()) {
      store = open();
      assertThat(logs.warnings())
          .singleElement()
          .asString()
          .contains("torn tail at byte " + frameEnd)
          .contains("4096 bytes");
    }
    assertPresent(store, List.of(e));
  }

  @Test
  void aFailedAllocationCostsSpeedNotRecords() throws IOException {
    FaultyDisk disk = new FaultyDisk();
    disk.failWritesFromThreads.set("tally-journal-allocator");
    List<Execution> written;
    try (LogCapture logs = LogCapture.start()) {
      store =
          JournalExecutionStore.open(
              JournalOptions.defaults(dir).withClock(clock).withPreallocation(CHUNK),
              disk,
              Compactor.Hooks.NONE);
      written = claim(store, 200); // several chunks' worth: the allocator is asked many times
      store.close();
      assertThat(logs.warnings())
          .as("logged once, not per attempt")
          .singleElement()
          .asString()
          .contains("cannot allocate space ahead of the writer")
          .contains("simulated write failure");
    }
    JournalReader.End end = end(segment(1), 1);
    assertThat(end.zeroBytes()).as("the writer extended the file itself").isZero();
    assertThat(end.validEnd()).isEqualTo(Files.size(segment(1))).isGreaterThan(4 * CHUNK);
    store = open();
    assertPresent(store, written);
  }

  @Test
  void preallocationIsRefusedOutsideItsRangeNamingTheOption() {
    assertThatThrownBy(() -> JournalOptions.defaults(dir).withPreallocation(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("store.journal.preallocateBytes: -1");
    assertThatThrownBy(
            () ->
                JournalOptions.defaults(dir)
                    .withPreallocation(JournalOptions.MAX_PREALLOCATE_BYTES + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected: 0 (off) to");
  }

  /** The bytes of the frame that ends at {@code end} (walking the frames from the header). */
  private static byte[] lastFrame(byte[] file, long end) {
    int pos = JournalFormat.HEADER_BYTES;
    int start = pos;
    while (pos < end) {
      start = pos;
      pos += JournalFormat.FRAME_HEADER_BYTES + JournalFormat.readInt(file, pos);
    }
    assertThat((long) pos).isEqualTo(end);
    return Arrays.copyOfRange(file, start, pos);
  }
}
