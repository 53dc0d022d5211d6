package dev.tally.core.audit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Checks an audit directory offline (the library behind {@code tally audit verify DIR [--public-key
 * FILE]}): for both journals, every line's format, sequence, chain link, canonical form and hash,
 * and every checkpoint's coverage and Ed25519 signature. Reads each journal once, streaming.
 *
 * <p>Without an explicit public key the one beside the journals is used, which proves only that the
 * journals agree with that file; pass the key recorded at installation ({@code tally audit key}) to
 * detect journals re-signed with another key.
 */
public final class AuditVerifier {
  private final EntryCodec codec;

  private AuditVerifier(Canonicalizer canonicalizer) {
    this.codec = new EntryCodec(canonicalizer);
  }

  /** A verifier using RFC 8785 ({@link Canonicalizer#jcs()}). */
  public static AuditVerifier create() {
    return create(Canonicalizer.jcs());
  }

  public static AuditVerifier create(Canonicalizer canonicalizer) {
    return new AuditVerifier(Objects.requireNonNull(canonicalizer, "canonicalizer"));
  }

  /**
   * Verifies both journals of {@code dir}. Throws {@link AuditException} ({@code KEY}) only when no
   * usable public key can be read; every problem with the journals is a {@link
   * AuditVerification.Outcome#BAD} verdict.
   */
  public AuditVerification verify(Path dir, Optional<Path> publicKey) {
    AuditPublicKey key = AuditPublicKey.read(publicKey.orElse(AuditFiles.publicKey(dir)));
    List<AuditVerification.Journal> done = new ArrayList<>();
    boolean tail = false;
    for (String file : List.of(AuditFiles.ACTIVITY, AuditFiles.SESSIONS)) {
      Result r = verifyJournal(dir.resolve(file), key);
      if (r.journal() != null) {
        done.add(r.journal());
        tail |= r.journal().hasTail();
      }
      if (r.bad() != null) {
        return new AuditVerification(
            AuditVerification.Outcome.BAD, key.keyId(), done, Optional.of(r.bad()));
      }
    }
    return new AuditVerification(
        tail ? AuditVerification.Outcome.TAIL : AuditVerification.Outcome.OK,
        key.keyId(),
        done,
        Optional.empty());
  }

  /** One journal's summary (null if unreadable) and its first bad entry (null if none). */
  record Result(AuditVerification.Journal journal, AuditVerification.BadEntry bad) {}

  /** Verifies one journal file against {@code key}. */
  Result verifyJournal(Path file, AuditPublicKey key) {
    String name = file.getFileName().toString();
    try (InputStream in = Files.newInputStream(file)) {
      return verifyJournal(name, in, key);
    } catch (NoSuchFileException e) {
      return new Result(null, new AuditVerification.BadEntry(name, 0, 0, "the file is missing"));
    } catch (IOException e) {
      return new Result(null, new AuditVerification.BadEntry(name, 0, 0, "cannot be read: " + e));
    }
  }

  /** Verifies the journal called {@code name} read from {@code in}. */
  Result verifyJournal(String name, InputStream in, AuditPublicKey key) throws IOException {
    ChainChecker checker = new ChainChecker(AuditFiles.journalName(name), codec, key);
    LineReader reader = new LineReader(in, 0);
    for (LineReader.Line line = reader.next(); line != null; line = reader.next()) {
      ChainChecker.Problem p;
      if (line.tooLong()) {
        p =
            new ChainChecker.Problem(
                checker.lastSeq() + 1, "line longer than " + EntryCodec.MAX_LINE_BYTES + " bytes");
      } else if (!line.terminated()) {
        if (checker.classifyTail(line.bytes()) == ChainChecker.Tail.TORN) {
          return new Result(summary(name, checker, line.offset(), line.bytes().length), null);
        }
        p = checker.tailProblem();
      } else {
        p = checker.check(line.bytes());
      }
      if (p != null) {
        return new Result(
            summary(name, checker, -1, 0),
            new AuditVerification.BadEntry(name, p.seq(), line.offset(), p.what()));
      }
    }
    return new Result(summary(name, checker, -1, 0), null);
  }

  private static AuditVerification.Journal summary(
      String name, ChainChecker c, long tornOffset, long tornBytes) {
    long unsigned = c.lastSeq() - c.lastCheckpointSeq();
    return new AuditVerification.Journal(
        name, c.entries(), c.checkpoints(), unsigned, tornOffset, tornBytes);
  }
}
