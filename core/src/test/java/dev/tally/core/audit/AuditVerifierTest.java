package dev.tally.core.audit;

import static dev.tally.core.audit.Fixtures.T0;
import static dev.tally.core.audit.Fixtures.accepted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.RpcError;
import dev.tally.core.execution.Transition;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tampering with a journal in every way a single edit can is caught, and named. */
class AuditVerifierTest {
  @TempDir static Path dir;
  static byte[] journal;
  static AuditPublicKey key;
  static final AuditVerifier VERIFIER = Fixtures.verifier();

  static final int ENTRIES = 3;

  /** Three transitions and a closing checkpoint; small, so every byte can be flipped. */
  @BeforeAll
  static void writeJournal() throws IOException {
    MutableClock clock = new MutableClock(T0);
    try (AuditJournals j = AuditJournals.open(dir, Fixtures.options(clock))) {
      Execution e = accepted("alice", "refund", "hmac-sha256:k1:ab", T0);
      j.transition(null, e);
      e = Fixtures.step(j, e, ExecutionState.DISPATCHED, T0.plusMillis(5));
      Fixtures.step(
          j,
          e,
          Transition.to(e, ExecutionState.FAILED, T0.plusMillis(9))
              .withOutcome(503, new RpcError(-32603, "down")));
      key = j.publicKey();
    }
    journal = Files.readAllBytes(dir.resolve(AuditFiles.ACTIVITY));
    assertThat(Fixtures.lines(journal)).hasSize(ENTRIES + 1);
  }

  static AuditVerifier.Result verify(byte[] bytes) throws IOException {
    return verify(bytes, key);
  }

  static AuditVerifier.Result verify(byte[] bytes, AuditPublicKey k) throws IOException {
    return VERIFIER.verifyJournal(AuditFiles.ACTIVITY, new ByteArrayInputStream(bytes), k);
  }

  @Test
  void theUntouchedJournalVerifies() throws IOException {
    AuditVerifier.Result r = verify(journal);
    assertThat(r.bad()).isNull();
    assertThat(r.journal().entries()).isEqualTo(ENTRIES);
    assertThat(r.journal().checkpoints()).isEqualTo(1);
    assertThat(r.journal().hasTail()).isFalse();
  }

  @Test
  void flippingAnyBitPatternOfAnyByteIsCaughtAtThatLine() throws IOException {
    List<Long> lineStarts = lineStarts(journal);
    int checked = 0;
    for (int offset = 0; offset < journal.length; offset++) {
      long expectedLine = lineOf(lineStarts, offset);
      // 0x01 changes every byte; 0x20 swaps the case of letters (hex digits included).
      for (int mask : new int[] {0x01, 0x20}) {
        byte[] copy = journal.clone();
        copy[offset] ^= (byte) mask;
        AuditVerifier.Result r = verify(copy);
        assertThat(r.bad())
            .as("byte %d ^ 0x%02x", offset, mask)
            .isNotNull()
            .satisfies(
                b -> {
                  assertThat(b.offset()).isEqualTo(lineStarts.get((int) expectedLine));
                  assertThat(b.seq()).isEqualTo(expectedLine + 1);
                  assertThat(b.file()).isEqualTo(AuditFiles.ACTIVITY);
                });
        checked++;
      }
    }
    assertThat(checked).isEqualTo(2 * journal.length);
  }

  @Test
  void droppingAnyEntryIsCaught() throws IOException {
    List<byte[]> lines = Fixtures.lines(journal);
    for (int i = 0; i < lines.size(); i++) {
      List<byte[]> copy = new ArrayList<>(lines);
      copy.remove(i);
      AuditVerifier.Result r = verify(Fixtures.join(copy));
      if (i == lines.size() - 1) {
        // The closing checkpoint itself: the end is no longer signed.
        assertThat(r.bad()).isNull();
        assertThat(r.journal().unsigned()).isEqualTo(ENTRIES);
      } else {
        assertThat(r.bad()).as("dropped line %d", i).isNotNull();
        assertThat(r.bad().seq()).isEqualTo(i + 1);
        assertThat(r.bad().problem())
            .isEqualTo(
                "the line says seq "
                    + (i + 2)
                    + " where "
                    + (i + 1)
                    + " was expected (an entry is missing, repeated or out of order)");
      }
    }
  }

  @Test
  void reorderingAnyTwoEntriesIsCaught() throws IOException {
    List<byte[]> lines = Fixtures.lines(journal);
    for (int i = 0; i < lines.size(); i++) {
      for (int k = i + 1; k < lines.size(); k++) {
        List<byte[]> copy = new ArrayList<>(lines);
        Collections.swap(copy, i, k);
        AuditVerifier.Result r = verify(Fixtures.join(copy));
        assertThat(r.bad()).as("swapped %d and %d", i, k).isNotNull();
        assertThat(r.bad().seq()).isEqualTo(i + 1);
      }
    }
  }

  @Test
  void aCheckpointSignedWithAnotherKeyIsCaught() throws IOException {
    SigningKey other = SigningKey.generate();
    byte[] forged = resignCheckpoint(journal, other, other.publicKey().keyId());
    assertThat(verify(forged).bad().problem())
        .isEqualTo(
            "checkpoint is signed by key "
                + other.publicKey().keyId()
                + ", not by the public key "
                + key.keyId());

    byte[] claimed = resignCheckpoint(journal, other, key.keyId());
    assertThat(verify(claimed).bad())
        .satisfies(
            b -> {
              assertThat(b.seq()).isEqualTo(ENTRIES + 1);
              assertThat(b.problem())
                  .isEqualTo("checkpoint signature does not verify with key " + key.keyId());
            });
  }

  @Test
  void aCheckpointCoveringAnotherHashIsCaught() throws IOException {
    List<byte[]> lines = Fixtures.lines(journal);
    ObjectNode cp = parse(lines.get(ENTRIES));
    cp.put("covers_hash", "1".repeat(64));
    lines.set(ENTRIES, rehash(cp, cp.get("prev").asText()));
    assertThat(verify(Fixtures.join(lines)).bad().problem())
        .isEqualTo("checkpoint covers a hash that is not the hash of entry seq " + ENTRIES);
  }

  @Test
  void aChainRewrittenWithoutTheKeyFailsAtTheNextCheckpoint() throws IOException {
    List<byte[]> lines = Fixtures.lines(journal);
    ObjectNode e = parse(lines.get(ENTRIES - 1));
    e.put("state", "completed");
    e.put("target_status", 200);
    lines.set(ENTRIES - 1, rehash(e, e.get("prev").asText()));
    ObjectNode cp = parse(lines.get(ENTRIES));
    String newHash = parse(lines.get(ENTRIES - 1)).get("hash").asText();
    cp.put("prev", newHash);
    cp.put("covers_hash", newHash);
    lines.set(ENTRIES, rehash(cp, newHash));
    AuditVerifier.Result r = verify(Fixtures.join(lines));
    assertThat(r.bad().seq()).isEqualTo(ENTRIES + 1);
    assertThat(r.bad().problem()).startsWith("checkpoint signature does not verify");
  }

  @Test
  void aDirectoryReSignedWithAnotherKeyPassesOnlyWithoutTheTrustedKey(@TempDir Path forged)
      throws IOException {
    SigningKey other = SigningKey.generate();
    Files.write(
        forged.resolve(AuditFiles.ACTIVITY),
        resignCheckpoint(journal, other, other.publicKey().keyId()));
    Files.copy(dir.resolve(AuditFiles.SESSIONS), forged.resolve(AuditFiles.SESSIONS));
    Files.writeString(forged.resolve(AuditFiles.PUBLIC_KEY), other.publicKey().toText());

    // The key beside the journal proves only consistency with that key ...
    assertThat(VERIFIER.verify(forged, Optional.empty()).outcome())
        .isEqualTo(AuditVerification.Outcome.OK);
    // ... the trusted key catches the forgery.
    AuditVerification v = VERIFIER.verify(forged, Optional.of(dir.resolve(AuditFiles.PUBLIC_KEY)));
    assertThat(v.outcome()).isEqualTo(AuditVerification.Outcome.BAD);
    assertThat(v.message())
        .startsWith(
            "bad: activity.jsonl entry seq "
                + (ENTRIES + 1)
                + " at byte "
                + lineStarts(journal).get(ENTRIES)
                + ": checkpoint is signed by key");
    assertThat(v.exitCode(true)).isEqualTo(1);
  }

  @Test
  void aTruncatedTailIsReportedAsATailNotAsBad() throws IOException {
    List<Long> starts = lineStarts(journal);
    long last = starts.get(starts.size() - 1);
    for (int cut = (int) last + 1; cut < journal.length; cut++) {
      byte[] copy = java.util.Arrays.copyOf(journal, cut);
      AuditVerifier.Result r = verify(copy);
      assertThat(r.bad()).as("cut at %d", cut).isNull();
      assertThat(r.journal().tornOffset()).isEqualTo(last);
      assertThat(r.journal().tornBytes()).isEqualTo(cut - last);
      assertThat(r.journal().unsigned()).isEqualTo(ENTRIES);
    }
    byte[] zeroFilled =
        java.util.Arrays.copyOf(
            java.util.Arrays.copyOf(journal, (int) last + 40), (int) last + 4096);
    assertThat(verify(zeroFilled).journal().tornOffset()).isEqualTo(last);
  }

  @Test
  void aTruncatedDirectoryExitsOneUnlessTailsAreAllowed(@TempDir Path cut) throws IOException {
    List<Long> starts = lineStarts(journal);
    Files.write(
        cut.resolve(AuditFiles.ACTIVITY),
        java.util.Arrays.copyOf(journal, (int) (starts.get(ENTRIES) + 10)));
    Files.copy(dir.resolve(AuditFiles.SESSIONS), cut.resolve(AuditFiles.SESSIONS));
    AuditVerification v = VERIFIER.verify(cut, Optional.of(dir.resolve(AuditFiles.PUBLIC_KEY)));
    assertThat(v.outcome()).isEqualTo(AuditVerification.Outcome.TAIL);
    assertThat(v.message())
        .isEqualTo(
            "tail: 3 entries, 0 checkpoints; activity.jsonl: 3 entries after the last checkpoint"
                + " not yet signed; activity.jsonl: torn last line at byte "
                + starts.get(ENTRIES)
                + " (10 bytes)");
    assertThat(v.exitCode(false)).isEqualTo(1);
    assertThat(v.exitCode(true)).isZero();
  }

  @Test
  void garbageAfterTheLastLineIsBadNotTorn() throws IOException {
    byte[] copy = java.util.Arrays.copyOf(journal, journal.length + 3);
    copy[journal.length] = 'x';
    copy[journal.length + 1] = 'y';
    copy[journal.length + 2] = 'z';
    AuditVerifier.Result r = verify(copy);
    assertThat(r.bad()).isNotNull();
    assertThat(r.bad().offset()).isEqualTo(journal.length);
    assertThat(r.bad().seq()).isEqualTo(ENTRIES + 2);
  }

  @Test
  void aMissingJournalOrKeyIsNamed(@TempDir Path empty) throws IOException {
    Files.writeString(empty.resolve(AuditFiles.PUBLIC_KEY), key.toText());
    assertThat(VERIFIER.verify(empty, Optional.empty()).message())
        .isEqualTo("bad: activity.jsonl: the file is missing");
    Files.delete(empty.resolve(AuditFiles.PUBLIC_KEY));
    assertThatThrownBy(() -> VERIFIER.verify(empty, Optional.empty()))
        .isInstanceOf(AuditException.class)
        .hasMessageContaining("audit-public.key: no such public key file");
  }

  @Test
  void anEntryOfAnUnknownFormatVersionIsRefused() throws IOException {
    List<byte[]> lines = Fixtures.lines(journal);
    ObjectNode e = parse(lines.get(0));
    e.put("v", 2);
    lines.set(0, rehash(e, Hashes.ZERO_HASH));
    assertThat(verify(Fixtures.join(lines)).bad().problem())
        .isEqualTo("unsupported format version 2");
  }

  // --- helpers: an attacker who knows the format but not the key ---

  static ObjectNode parse(byte[] line) throws IOException {
    return (ObjectNode) EntryCodec.STRICT.readTree(line);
  }

  /** The line for {@code entry} (its hash recomputed over {@code prev}), without the newline. */
  static byte[] rehash(ObjectNode entry, String prev) {
    entry.remove("hash");
    return Fixtures.line(entry, prev);
  }

  static byte[] resignCheckpoint(byte[] file, SigningKey with, String claimedKeyId)
      throws IOException {
    List<byte[]> lines = Fixtures.lines(file);
    int last = lines.size() - 1;
    ObjectNode cp = parse(lines.get(last));
    cp.remove("hash");
    cp.remove("sig");
    cp.put("key", claimedKeyId);
    byte[] canonical = Canonicalizer.jcs().canonicalize(cp);
    byte[] sig = with.sign(EntryCodec.checkpointMessage("activity", canonical));
    cp.put("sig", Base64.getEncoder().encodeToString(sig));
    lines.set(last, rehash(cp, cp.get("prev").asText()));
    return Fixtures.join(lines);
  }

  static List<Long> lineStarts(byte[] file) {
    List<Long> starts = new ArrayList<>();
    starts.add(0L);
    for (int i = 0; i < file.length - 1; i++) {
      if (file[i] == '\n') {
        starts.add((long) i + 1);
      }
    }
    return starts;
  }

  /** The index of the line containing {@code offset} (a newline belongs to the line it ends). */
  static long lineOf(List<Long> starts, int offset) {
    long line = 0;
    for (int i = 0; i < starts.size(); i++) {
      if (starts.get(i) <= offset) {
        line = i;
      }
    }
    return line;
  }

  static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
