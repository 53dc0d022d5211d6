package dev.tally.core.audit;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Arrays;
import java.util.Base64;

/**
 * Checks the lines of one journal in order: format, sequence, chain, canonical form, hash, and each
 * checkpoint's coverage and signature. Used by {@link AuditVerifier} and by a writer re-opening a
 * journal. Not thread-safe.
 */
final class ChainChecker {

  /**
   * What is wrong with one line. {@code seq} is the line's position in the chain (the seq a good
   * entry there would have); every line before it checked out.
   */
  record Problem(long seq, String what) {}

  /** How the unterminated end of a journal reads. */
  enum Tail {
    /** A prefix of an entry: an interrupted write. */
    TORN,
    /** Not a prefix of any entry: damaged. */
    BAD
  }

  private final String journal;
  private final EntryCodec codec;
  private final AuditPublicKey key;

  private long expectedSeq = 1;
  private String prev = Hashes.ZERO_HASH;
  private boolean lastWasCheckpoint;
  private long entries;
  private long checkpoints;
  private long lastCheckpointSeq;
  private Problem tailProblem;

  ChainChecker(String journal, EntryCodec codec, AuditPublicKey key) {
    this.journal = journal;
    this.codec = codec;
    this.key = key;
  }

  /** Continues a chain at an entry whose own checks will anchor it (a writer's last checkpoint). */
  void startAt(long seq, String prevHash) {
    expectedSeq = seq;
    prev = prevHash;
  }

  /** Checks one complete line; {@code null} means it is good and the chain moved on. */
  Problem check(byte[] line) {
    if (line.length == 0) {
      return new Problem(expectedSeq, "empty line");
    }
    JsonNode parsed;
    try {
      parsed = EntryCodec.STRICT.readTree(line);
    } catch (JsonProcessingException e) {
      long at = e.getLocation() == null ? -1 : e.getLocation().getByteOffset();
      return new Problem(
          expectedSeq, "not valid JSON" + (at >= 0 ? " (at byte " + at + " of the line)" : ""));
    } catch (IOException e) {
      return new Problem(expectedSeq, "not valid JSON");
    }
    if (!(parsed instanceof ObjectNode)) {
      return new Problem(expectedSeq, "not a JSON object");
    }
    ObjectNode entry = (ObjectNode) parsed;
    JsonNode seqNode = entry.get(EntryCodec.SEQ);
    if (seqNode == null || !seqNode.isIntegralNumber() || !seqNode.canConvertToLong()) {
      return new Problem(expectedSeq, "missing or non-integer \"seq\"");
    }
    long found = seqNode.longValue();
    long seq = expectedSeq;
    JsonNode v = entry.get(EntryCodec.V);
    if (v == null || !v.isIntegralNumber()) {
      return new Problem(seq, "missing or non-integer \"v\"");
    }
    if (v.longValue() != EntryCodec.VERSION) {
      return new Problem(seq, "unsupported format version " + v.longValue());
    }
    String hash = text(entry, EntryCodec.HASH);
    if (!Hashes.isHash(hash)) {
      return new Problem(seq, "missing or malformed \"hash\" (expected 64 lowercase hex digits)");
    }
    String prevField = text(entry, EntryCodec.PREV);
    if (!Hashes.isHash(prevField)) {
      return new Problem(seq, "missing or malformed \"prev\" (expected 64 lowercase hex digits)");
    }
    String type = text(entry, EntryCodec.TYPE);
    if (type == null) {
      return new Problem(seq, "missing \"type\"");
    }
    if (found != expectedSeq) {
      return new Problem(
          seq,
          "the line says seq "
              + found
              + " where "
              + expectedSeq
              + " was expected (an entry is missing, repeated or out of order)");
    }
    if (!prevField.equals(prev)) {
      return new Problem(
          seq,
          seq == 1
              ? "prev of the first entry is not all zeros"
              : "prev does not match the hash of entry seq " + (seq - 1));
    }
    entry.remove(EntryCodec.HASH);
    byte[] canonical;
    try {
      canonical = codec.canonicalize(entry);
    } catch (RuntimeException e) {
      return new Problem(seq, "cannot be canonicalized (RFC 8785)");
    }
    if (!Arrays.equals(line, EntryCodec.line(canonical, hash))) {
      return new Problem(seq, "not in canonical form: the line's bytes were changed");
    }
    if (!EntryCodec.hash(prev, canonical).equals(hash)) {
      return new Problem(seq, "hash does not match the entry's content");
    }
    boolean checkpoint = EntryCodec.CHECKPOINT.equals(type);
    if (checkpoint) {
      String wrong = checkCheckpoint(entry, seq);
      if (wrong != null) {
        return new Problem(seq, wrong);
      }
      checkpoints++;
      lastCheckpointSeq = seq;
    } else {
      entries++;
    }
    lastWasCheckpoint = checkpoint;
    expectedSeq = seq + 1;
    prev = hash;
    return null;
  }

  private String checkCheckpoint(ObjectNode entry, long seq) {
    JsonNode coversSeq = entry.get(EntryCodec.COVERS_SEQ);
    if (coversSeq == null || !coversSeq.isIntegralNumber() || coversSeq.longValue() != seq - 1) {
      return "checkpoint does not cover the previous entry (seq " + (seq - 1) + ")";
    }
    if (!prev.equals(text(entry, EntryCodec.COVERS_HASH))) {
      return "checkpoint covers a hash that is not the hash of entry seq " + (seq - 1);
    }
    String keyId = text(entry, EntryCodec.KEY);
    if (keyId == null) {
      return "checkpoint names no signing key";
    }
    if (!keyId.equals(key.keyId())) {
      return "checkpoint is signed by key "
          + Text.clean(keyId, 64)
          + ", not by the public key "
          + key.keyId();
    }
    byte[] sig;
    try {
      String b64 = text(entry, EntryCodec.SIG);
      sig = b64 == null ? null : Base64.getDecoder().decode(b64);
    } catch (IllegalArgumentException e) {
      sig = null;
    }
    if (sig == null) {
      return "checkpoint has no valid Base64 signature";
    }
    entry.remove(EntryCodec.SIG);
    byte[] message = EntryCodec.checkpointMessage(journal, codec.canonicalize(entry));
    if (!key.verify(message, sig)) {
      return "checkpoint signature does not verify with key " + key.keyId();
    }
    return null;
  }

  /**
   * Classifies the unterminated last segment of a journal. A prefix cut short by a crash (possibly
   * followed by the zero bytes some file systems leave) is {@link Tail#TORN}; so is a complete,
   * valid entry that only lacks its newline. Anything else is {@link Tail#BAD} and {@link
   * #tailProblem()} says why. Does not move the chain on.
   */
  Tail classifyTail(byte[] segment) {
    int len = segment.length;
    while (len > 0 && segment[len - 1] == 0) {
      len--;
    }
    if (len == 0) {
      return Tail.TORN;
    }
    byte[] bytes = Arrays.copyOf(segment, len);
    switch (shape(bytes)) {
      case PREFIX:
        return Tail.TORN;
      case OTHER:
        return bad("the unterminated last line is neither an entry nor the start of one");
      default:
        break;
    }
    long saveSeq = expectedSeq;
    String savePrev = prev;
    long saveEntries = entries;
    long saveCheckpoints = checkpoints;
    long saveLastCheckpoint = lastCheckpointSeq;
    boolean saveLastWas = lastWasCheckpoint;
    Problem p = check(bytes);
    expectedSeq = saveSeq;
    prev = savePrev;
    entries = saveEntries;
    checkpoints = saveCheckpoints;
    lastCheckpointSeq = saveLastCheckpoint;
    lastWasCheckpoint = saveLastWas;
    if (p != null) {
      tailProblem = p;
      return Tail.BAD;
    }
    return Tail.TORN;
  }

  private enum Shape {
    /** One complete JSON object and nothing else. */
    OBJECT,
    /** The start of a JSON object, cut off where the input ends. */
    PREFIX,
    /** Anything else. */
    OTHER
  }

  private static Shape shape(byte[] bytes) {
    if (bytes[0] != '{') {
      return Shape.OTHER;
    }
    int depth = 0;
    try (JsonParser p = EntryCodec.STRICT.createParser(bytes)) {
      try {
        for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
          if (t.isStructStart()) {
            depth++;
          } else if (t.isStructEnd() && --depth == 0) {
            return p.nextToken() == null ? Shape.OBJECT : Shape.OTHER;
          }
        }
        return Shape.PREFIX;
      } catch (JsonProcessingException e) {
        // A prefix of a valid line fails only where the input ends, inside the object.
        boolean atEnd = e.getLocation() != null && e.getLocation().getByteOffset() >= bytes.length;
        return atEnd && depth > 0 ? Shape.PREFIX : Shape.OTHER;
      }
    } catch (IOException e) {
      return Shape.OTHER;
    }
  }

  private Tail bad(String what) {
    tailProblem = new Problem(expectedSeq, what);
    return Tail.BAD;
  }

  /** Why {@link #classifyTail(byte[])} said {@link Tail#BAD}. */
  Problem tailProblem() {
    return tailProblem;
  }

  private static String text(ObjectNode entry, String field) {
    JsonNode n = entry.get(field);
    return n != null && n.isTextual() ? n.textValue() : null;
  }

  String journal() {
    return journal;
  }

  /** Entries checked so far, checkpoints excluded. */
  long entries() {
    return entries;
  }

  long checkpoints() {
    return checkpoints;
  }

  /** The seq of the last good line, or {@code expected - 1}. */
  long lastSeq() {
    return expectedSeq - 1;
  }

  /** The hash of the last good line (all zeros before the first). */
  String lastHash() {
    return prev;
  }

  boolean lastWasCheckpoint() {
    return lastWasCheckpoint;
  }

  long lastCheckpointSeq() {
    return lastCheckpointSeq;
  }
}
