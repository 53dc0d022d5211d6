package dev.tally.core.audit;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;

/**
 * Making and placing the Ed25519 key that signs the audit checkpoints ({@value
 * AuditFiles#SIGNING_KEY}), for deployments that keep it outside the audit directory, e.g. in a
 * Kubernetes Secret: {@link #generate} writes a new key file; {@link #install} copies one into an
 * audit directory as the owner-only file the journals require. Without either, the journals
 * generate their own key on first start.
 */
public final class AuditSigningKeys {
  private AuditSigningKeys() {}

  /** The outcome of {@link #install}. */
  public enum Installed {
    /** The key was copied into the directory. */
    COPIED,
    /** The directory already held this very key; nothing was written. */
    ALREADY_PRESENT
  }

  /**
   * Writes a new random signing key to {@code file} (mode 0600 where the file system has POSIX
   * permissions, never overwriting) and returns its public half.
   *
   * @throws AuditException {@code KEY} if the file exists or cannot be written
   */
  public static AuditPublicKey generate(Path file) {
    Objects.requireNonNull(file, "file");
    if (Files.exists(file)) {
      throw new AuditException(
          AuditException.Code.KEY, file + ": already exists (not overwritten)");
    }
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null && !Files.isDirectory(parent)) {
      throw new AuditException(
          AuditException.Code.KEY, file + ": its directory " + parent + " does not exist");
    }
    return SigningKey.create(file).publicKey();
  }

  /**
   * Copies the signing key in {@code keyFile} (any mode: a mounted Secret is group-readable) into
   * {@code auditDir} as {@value AuditFiles#SIGNING_KEY}, mode 0600, creating the directory if
   * needed. Refuses, writing nothing, when the directory already holds a different signing key or a
   * public key ({@value AuditFiles#PUBLIC_KEY}) that is not this key's: journals signed by another
   * key cannot be continued under this one.
   *
   * @return whether the key was copied or was already there
   * @throws AuditException {@code KEY} for a malformed key or a conflict, {@code IO} if the copy
   *     fails
   */
  public static Installed install(Path keyFile, Path auditDir) {
    Objects.requireNonNull(keyFile, "keyFile");
    Objects.requireNonNull(auditDir, "auditDir");
    AuditPublicKey key = SigningKey.read(keyFile).publicKey();
    Path target = auditDir.resolve(AuditFiles.SIGNING_KEY);
    if (Files.exists(target)) {
      AuditPublicKey present = SigningKey.load(target).publicKey();
      if (present.equals(key)) {
        return Installed.ALREADY_PRESENT;
      }
      throw new AuditException(
          AuditException.Code.KEY,
          target
              + ": holds signing key "
              + present.keyId()
              + ", not "
              + key.keyId()
              + " from "
              + keyFile
              + " (the journals there are signed by the key present; restore that key or move the"
              + " directory aside)");
    }
    Path publicFile = AuditFiles.publicKey(auditDir);
    if (Files.exists(publicFile) && !AuditPublicKey.read(publicFile).equals(key)) {
      throw new AuditException(
          AuditException.Code.KEY,
          publicFile
              + ": is not the public half of "
              + key.keyId()
              + " from "
              + keyFile
              + " (the journals there were signed by another key)");
    }
    byte[] content = null;
    try {
      Files.createDirectories(auditDir);
      content = Files.readAllBytes(keyFile);
      FileOps.createAtomically(target, content, FileOps.OWNER_ONLY);
      return Installed.COPIED;
    } catch (FileAlreadyExistsException e) {
      throw new AuditException(
          AuditException.Code.KEY, target + ": appeared while installing (another writer?)", e);
    } catch (IOException e) {
      throw new AuditException(
          AuditException.Code.IO,
          target + ": cannot install the signing key: " + e.getClass().getSimpleName(),
          e);
    } finally {
      if (content != null) {
        Arrays.fill(content, (byte) 0);
      }
    }
  }

  /** The public key of the signing key in {@code keyFile} (any mode). */
  public static AuditPublicKey publicKeyOf(Path keyFile) {
    return SigningKey.read(keyFile).publicKey();
  }
}
