package dev.tally.core.audit;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The verdict of {@link AuditVerifier} on an audit directory: {@link Outcome#OK}, {@link
 * Outcome#TAIL} (everything complete checks out, but the end is not covered by a signature) or
 * {@link Outcome#BAD} with the first bad entry. {@link #message()} is the line the CLI prints.
 *
 * @param outcome the verdict
 * @param keyId the id of the public key the checkpoints were checked against
 * @param journals what was found in each journal (all of them for OK and TAIL; up to the bad one)
 * @param bad the first bad entry, present exactly when the outcome is BAD
 */
public record AuditVerification(
    Outcome outcome, String keyId, List<Journal> journals, Optional<BadEntry> bad) {

  /** The three verdicts. */
  public enum Outcome {
    /** Every entry chains and every journal ends with a valid checkpoint. */
    OK,
    /**
     * Every complete entry chains and every checkpoint is valid, but some journal ends with entries
     * no checkpoint signs yet, or with a torn (partially written) line: what a running or crashed
     * writer leaves, and also what cutting entries off the end looks like.
     */
    TAIL,
    /** An entry is damaged, missing, out of order or forged: see {@link #bad()}. */
    BAD
  }

  /**
   * What was verified in one journal.
   *
   * @param file the journal's file name
   * @param entries good entries, checkpoints excluded
   * @param checkpoints good checkpoints
   * @param unsigned entries after the last checkpoint
   * @param tornOffset byte offset of a torn last line, or -1
   * @param tornBytes length of the torn last line
   */
  public record Journal(
      String file, long entries, long checkpoints, long unsigned, long tornOffset, long tornBytes) {

    /** Whether this journal has a tail not covered by a signature. */
    public boolean hasTail() {
      return unsigned > 0 || tornOffset >= 0;
    }
  }

  /**
   * The first bad entry.
   *
   * @param file the journal's file name
   * @param seq the entry's seq (the expected one when the line has none; 0 for the file itself)
   * @param offset the byte offset of the entry's line
   * @param problem what is wrong
   */
  public record BadEntry(String file, long seq, long offset, String problem) {}

  public AuditVerification {
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(keyId, "keyId");
    journals = List.copyOf(journals);
    Objects.requireNonNull(bad, "bad");
    if (bad.isPresent() != (outcome == Outcome.BAD)) {
      throw new IllegalArgumentException("a bad entry goes with outcome BAD, and only with it");
    }
  }

  /** Good entries in all journals, checkpoints excluded. */
  public long entries() {
    return journals.stream().mapToLong(Journal::entries).sum();
  }

  /** Good checkpoints in all journals. */
  public long checkpoints() {
    return journals.stream().mapToLong(Journal::checkpoints).sum();
  }

  /**
   * One line for a person: {@code ok: <n> entries, <m> checkpoints}; {@code tail: …} naming each
   * uncovered tail; {@code bad: <file> entry seq <s> at byte <o>: <problem>}.
   */
  public String message() {
    switch (outcome) {
      case OK:
        return "ok: " + counts();
      case TAIL:
        StringBuilder sb = new StringBuilder("tail: ").append(counts());
        for (Journal j : journals) {
          if (j.unsigned() > 0) {
            sb.append("; ")
                .append(j.file())
                .append(": ")
                .append(j.unsigned())
                .append(j.unsigned() == 1 ? " entry" : " entries")
                .append(" after the last checkpoint not yet signed");
          }
          if (j.tornOffset() >= 0) {
            sb.append("; ")
                .append(j.file())
                .append(": torn last line at byte ")
                .append(j.tornOffset())
                .append(" (")
                .append(j.tornBytes())
                .append(" bytes)");
          }
        }
        return sb.toString();
      default:
        BadEntry b = bad.orElseThrow();
        return "bad: "
            + b.file()
            + (b.seq() > 0 ? " entry seq " + b.seq() + " at byte " + b.offset() : "")
            + ": "
            + b.problem();
    }
  }

  private String counts() {
    return entries() + " entries, " + checkpoints() + " checkpoints";
  }

  /**
   * The CLI's exit status: 0 for OK, 1 for TAIL (0 when {@code allowTail}) and for BAD, as the
   * issue specifies.
   */
  public int exitCode(boolean allowTail) {
    switch (outcome) {
      case OK:
        return 0;
      case TAIL:
        return allowTail ? 0 : 1;
      default:
        return 1;
    }
  }

  @Override
  public String toString() {
    return message();
  }
}
