package dev.tally.core.store.journal;

import dev.tally.core.store.StoreException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.SortedMap;

/**
 * Rebuilds the live records from the journal files at start, finishing or undoing whatever a crash
 * interrupted: unfinished {@code .tmp} files are deleted, files a finished compaction replaced are
 * deleted, and a torn tail of the newest segment is truncated (one log line with the offset).
 * Riders of the segments that remain go, in file order, to the rider sink given (if any).
 */
final class Recovery {
  private static final System.Logger LOG = System.getLogger(JournalExecutionStore.class.getName());

  /**
   * What recovery found: the live records, the newest snapshot's sequence (0: none), the segment to
   * continue writing (open, its torn tail removed), where its records end ({@code segmentSize}) and
   * its file ends ({@code segmentFileSize}: larger by the zeros allocated ahead), and the bytes of
   * all other files.
   */
  record Result(
      LogState state,
      long snapshotSeq,
      FileChannel segment,
      long segmentSeq,
      long segmentSize,
      long segmentFileSize,
      int segmentVersion,
      long closedBytes,
      long riderBytes) {}

  private Recovery() {}

  static Result recover(JournalDir dir, RiderSink riders) throws IOException {
    JournalDir.Listing files = dir.list();
    boolean changed = false;
    for (Path tmp : files.tmps()) {
      Files.deleteIfExists(tmp);
      changed = true;
    }
    LogState state = new LogState();
    long[] riderBytes = {0};
    RecordCodec.Sink sink = withRiders(state, riders, riderBytes);
    long closedBytes = 0;
    long snapshot = files.snapshots().isEmpty() ? 0 : files.snapshots().lastKey();
    if (snapshot > 0) {
      Path p = dir.snapshot(snapshot);
      readStrict(dir, p, JournalFormat.KIND_SNAPSHOT, snapshot, state);
      closedBytes += Files.size(p);
      // A compaction that renamed its snapshot but did not finish deleting what it replaced.
      for (Path older : files.snapshots().headMap(snapshot).values()) {
        Files.deleteIfExists(older);
        changed = true;
      }
      for (Path covered : files.segments().headMap(snapshot + 1).values()) {
        Files.deleteIfExists(covered);
        changed = true;
      }
    }
    if (changed) {
      dir.sync();
    }

    SortedMap<Long, Path> segments = files.segments().tailMap(snapshot + 1);
    long expected = snapshot + 1;
    for (Map.Entry<Long, Path> s : segments.entrySet()) {
      if (s.getKey() != expected) {
        throw new StoreException(
            StoreException.Code.CORRUPT,
            "journal in "
                + dir.path()
                + " is missing "
                + dir.segment(expected).getFileName()
                + " (found "
                + s.getValue().getFileName()
                + "); refusing to start without it");
      }
      expected++;
    }
    if (segments.isEmpty()) {
      long seq = snapshot + 1;
      FileChannel ch = dir.create(dir.segment(seq), JournalFormat.KIND_SEGMENT, seq);
      return new Result(
          state,
          snapshot,
          ch,
          seq,
          JournalFormat.HEADER_BYTES,
          JournalFormat.HEADER_BYTES,
          JournalFormat.FORMAT_VERSION,
          closedBytes,
          riderBytes[0]);
    }
    long last = segments.lastKey();
    for (Map.Entry<Long, Path> s : segments.headMap(last).entrySet()) {
      // Records only: a segment closed by a crash may still end in zeros allocated ahead.
      closedBytes +=
          readStrict(dir, s.getValue(), JournalFormat.KIND_SEGMENT, s.getKey(), sink).validEnd();
    }
    Path tail = segments.get(last);
    FileChannel ch = dir.channels().open(tail, StandardOpenOption.READ, StandardOpenOption.WRITE);
    try {
      JournalReader.End end =
          JournalReader.read(ch, tail, JournalFormat.KIND_SEGMENT, last, true, sink);
      if (end.tornBytes() > 0) {
        // Not forced here: until the writer's first fsync (which covers the new size) nothing is
        // acknowledged, and a crash before it leaves the same torn tail to truncate again.
        ch.truncate(end.validEnd());
        LOG.log(
            System.Logger.Level.WARNING,
            "journal "
                + tail
                + ": torn tail at byte "
                + end.validEnd()
                + " ("
                + end.tornBytes()
                + " bytes of a write that never completed) truncated; every record before it is"
                + " intact");
      }
      return new Result(
          state,
          snapshot,
          ch,
          last,
          end.validEnd(),
          end.validEnd() + end.zeroBytes(),
          end.formatVersion(),
          closedBytes,
          riderBytes[0]);
    } catch (IOException | RuntimeException e) {
      JournalDir.closeQuietly(ch);
      throw e;
    }
  }

  /**
   * {@code state} for records, {@code riders} (if not null) for the riders in file order, whose
   * bytes (records included) are added up in {@code riderBytes[0]}.
   */
  private static RecordCodec.Sink withRiders(LogState state, RiderSink riders, long[] riderBytes) {
    return new RecordCodec.Sink() {
      @Override
      public void accept(JournalEntry entry, int encodedBytes) {
        state.accept(entry, encodedBytes);
      }

      @Override
      public void rider(byte[] tag, long offset, byte[] bytes, int from, int length) {
        riderBytes[0] += RecordCodec.riderRecordBytes(tag.length, length);
        if (riders != null) {
          riders.accept(tag, offset, bytes, from, length);
        }
      }
    };
  }

  /** Reads a file that must be whole (a snapshot, or a segment that is not the newest). */
  static JournalReader.End readStrict(
      JournalDir dir, Path file, short kind, long seq, RecordCodec.Sink sink) throws IOException {
    try (FileChannel ch = dir.channels().open(file, StandardOpenOption.READ)) {
      return JournalReader.read(ch, file, kind, seq, false, sink);
    }
  }
}
