package dev.tally.core.gate;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * How a pending confirmation keeps the call it will run (issue 18), in the execution's result slot:
 * a one-line header {@code tally-pending/1 <contract digest>\n} and then the client's {@code
 * tools/call} message, unchanged. The digest is the {@link
 * dev.tally.core.contract.ToolContract#digest()} the call was made under, so the confirmation can
 * tell whether the contract changed; no column of the store is added for it.
 *
 * <p>A value without the header (stored before it existed: it starts with the message's {@code
 * {}) is read as the message with no digest. Immutable.
 *
 * @param digest the contract digest, or {@code null} when none was stored
 * @param message the stored {@code tools/call} message
 */
record StoredCall(String digest, byte[] message) {
  static final String MAGIC = "tally-pending/1 ";

  /** The stored form of {@code message} made under a contract with {@code digest}. */
  static byte[] encode(String digest, byte[] message) {
    byte[] head = (MAGIC + digest + "\n").getBytes(StandardCharsets.US_ASCII);
    byte[] out = Arrays.copyOf(head, head.length + message.length);
    System.arraycopy(message, 0, out, head.length, message.length);
    return out;
  }

  /** Reads a stored value; one without the header is the message itself. */
  static StoredCall decode(byte[] stored) {
    byte[] magic = MAGIC.getBytes(StandardCharsets.US_ASCII);
    if (stored.length < magic.length
        || !Arrays.equals(stored, 0, magic.length, magic, 0, magic.length)) {
      return new StoredCall(null, stored);
    }
    for (int i = magic.length; i < stored.length; i++) {
      if (stored[i] == '\n') {
        String digest =
            new String(stored, magic.length, i - magic.length, StandardCharsets.US_ASCII);
        return new StoredCall(
            digest.isEmpty() ? null : digest, Arrays.copyOfRange(stored, i + 1, stored.length));
      }
    }
    return new StoredCall(null, new byte[0]);
  }
}
