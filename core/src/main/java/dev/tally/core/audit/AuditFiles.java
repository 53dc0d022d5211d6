package dev.tally.core.audit;

import java.nio.file.Path;

/** The names of the files in an audit directory. */
public final class AuditFiles {
  /** The activity journal: one entry per execution transition or answered retry. */
  public static final String ACTIVITY = "activity.jsonl";

  /** The sessions journal: agent runs and MCP sessions seen. */
  public static final String SESSIONS = "sessions.jsonl";

  /** The public key that verifies checkpoints ({@link AuditPublicKey} text format). */
  public static final String PUBLIC_KEY = "audit-public.key";

  /** The private signing key, mode 0600. */
  public static final String SIGNING_KEY = "audit-signing.key";

  /** Held locked by the one writer of the directory. */
  public static final String LOCK = "audit.lock";

  private AuditFiles() {}

  /** The journal's name inside entries and signatures: the file name without {@code .jsonl}. */
  static String journalName(String fileName) {
    return fileName.endsWith(".jsonl")
        ? fileName.substring(0, fileName.length() - ".jsonl".length())
        : fileName;
  }

  /** The public key file of {@code dir}. */
  public static Path publicKey(Path dir) {
    return dir.resolve(PUBLIC_KEY);
  }
}
