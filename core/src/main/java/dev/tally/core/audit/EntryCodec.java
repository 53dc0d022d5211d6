package dev.tally.core.audit;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * The line format of both journals (format version {@value #VERSION}).
 *
 * <p>Implementation note (ARCHITECTURE.md §9): an entry's {@code hash} is {@code SHA-256(prev ‖
 * JCS(entry without hash))} in lowercase hex, where {@code prev} is the 32 raw bytes of the
 * previous entry's hash (all zeros before the first entry) and JCS is RFC 8785. The line is exactly
 * those canonical bytes with {@code ,"hash":"<hex>"} inserted before the closing brace, then {@code
 * \n}. Because the line is a function of the hashed bytes, changing any byte of a line is
 * detectable: it either breaks the JSON, makes the line differ from its canonical form, or changes
 * the hash. A checkpoint's {@code sig} is the Ed25519 signature of {@link
 * #checkpointMessage(String, byte[])}.
 */
final class EntryCodec {
  static final int VERSION = 1;
  static final int MAX_LINE_BYTES = 1 << 20;

  static final String V = "v";
  static final String SEQ = "seq";
  static final String PREV = "prev";
  static final String HASH = "hash";
  static final String TYPE = "type";
  static final String AT = "at";
  static final String CHECKPOINT = "checkpoint";
  static final String COVERS_SEQ = "covers_seq";
  static final String COVERS_HASH = "covers_hash";
  static final String KEY = "key";
  static final String SIG = "sig";

  private static final byte[] HASH_MEMBER =
      ("\"" + HASH + "\":\"").getBytes(StandardCharsets.US_ASCII);
  private static final byte[] LINE_END = {'"', '}', '\n'};
  private static final byte[] CHECKPOINT_DOMAIN =
      "tally-audit-checkpoint-v1\n".getBytes(StandardCharsets.US_ASCII);

  /**
   * A parser that refuses duplicate keys and trailing content, so that a line means one thing to
   * every reader.
   */
  static final ObjectMapper STRICT =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private final Canonicalizer canonicalizer;

  EntryCodec(Canonicalizer canonicalizer) {
    this.canonicalizer = canonicalizer;
  }

  byte[] canonicalize(ObjectNode entry) {
    return canonicalizer.canonicalize(entry);
  }

  /**
   * Turns the canonical bytes of one entry, {@code out[start, size)}, into its line: the hash
   * member inserted before the closing brace, then the newline. The writer's counterpart of {@link
   * #line(byte[], String)}, which the verifier uses.
   */
  static void completeLine(LineBuffer out, int start, byte[] hash) {
    int end = out.size();
    if (end - start < 2 || out.get(end - 1) != '}') {
      throw new IllegalArgumentException("not the canonical form of an object");
    }
    out.size(end - 1);
    if (end - start > 2) {
      out.put((byte) ',');
    }
    out.put(HASH_MEMBER);
    out.putHex(hash);
    out.put(LINE_END);
  }

  static String hash(String prevHash, byte[] canonical) {
    MessageDigest md = Hashes.sha256();
    md.update(Hashes.unhex(prevHash));
    md.update(canonical);
    return Hashes.hex(md.digest());
  }

  /** The line for these canonical bytes and hash, without the newline. */
  static byte[] line(byte[] canonical, String hash) {
    byte[] member =
        ((canonical.length > 2 ? "," : "") + "\"" + HASH + "\":\"" + hash + "\"}")
            .getBytes(StandardCharsets.US_ASCII);
    byte[] out = Arrays.copyOf(canonical, canonical.length - 1 + member.length);
    System.arraycopy(member, 0, out, canonical.length - 1, member.length);
    return out;
  }

  /**
   * What a checkpoint signs: a domain tag, the journal name and the checkpoint's canonical form.
   */
  static byte[] checkpointMessage(String journal, byte[] canonicalWithoutSigAndHash) {
    byte[] name = (journal + "\n").getBytes(StandardCharsets.UTF_8);
    byte[] out =
        new byte[CHECKPOINT_DOMAIN.length + name.length + canonicalWithoutSigAndHash.length];
    System.arraycopy(CHECKPOINT_DOMAIN, 0, out, 0, CHECKPOINT_DOMAIN.length);
    System.arraycopy(name, 0, out, CHECKPOINT_DOMAIN.length, name.length);
    System.arraycopy(
        canonicalWithoutSigAndHash,
        0,
        out,
        CHECKPOINT_DOMAIN.length + name.length,
        canonicalWithoutSigAndHash.length);
    return out;
  }
}
