package dev.tally.sidecar.cli;

import dev.tally.core.audit.AuditException;
import dev.tally.core.audit.AuditPublicKey;
import dev.tally.core.audit.AuditSigningKeys;
import dev.tally.core.fingerprint.KeyException;
import dev.tally.core.fingerprint.KeyFiles;
import dev.tally.core.fingerprint.KeyRing;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tally key}: key files. */
@Command(
    name = "key",
    header = "Generates key files (HMAC fingerprint keys, the audit signing key).",
    description = "Generates key files (see 'tally key generate --help').",
    subcommands = {KeyCommand.Generate.class})
final class KeyCommand implements Runnable {
  @Override
  public void run() {
    new picocli.CommandLine(this).usage(System.out);
  }

  /** What {@code tally key generate} makes. */
  enum Type {
    hmac,
    audit
  }

  /** {@code tally key generate [--type hmac|audit] FILE}. */
  @Command(
      name = "generate",
      header = "Writes a new random key file (mode 0600, never overwriting one).",
      description = {
        "--type hmac (the default): an HMAC key file for hmac.keyFile, one line"
            + " k<yyyyMMdd>:<base64 of 32 random bytes>. Every replica of one deployment must"
            + " use the same file.",
        "--type audit: an Ed25519 audit signing key (audit-signing.key) for the audit journals"
            + " beside a journal store; its public half, which verifies them, is printed.",
        "The key material is never printed. Exits 0, or 2 if FILE exists or cannot be written."
      })
  static final class Generate implements Callable<Integer>, TallyCli.Streams {
    @Parameters(paramLabel = "FILE", description = "The key file to create.")
    Path file;

    @Option(
        names = "--type",
        defaultValue = "hmac",
        description = "hmac or audit (default: ${DEFAULT-VALUE}).")
    Type type;

    PrintStream out = System.out;
    PrintStream err = System.err;

    @Override
    public void streams(InputStream in, PrintStream out, PrintStream err) {
      this.out = out;
      this.err = err;
    }

    @Override
    public Integer call() {
      try {
        if (type == Type.audit) {
          AuditPublicKey pub = AuditSigningKeys.generate(file);
          out.println(
              "tally: wrote audit signing key "
                  + pub.keyId()
                  + " to "
                  + file
                  + " (mode 0600; keep it secret). Its public key, for tally audit verify"
                  + " --public-key:");
          out.print(pub.toText());
        } else {
          if (Files.exists(file)) {
            throw new KeyException("hmac key file " + file + ": already exists (not overwritten)");
          }
          KeyRing ring = KeyFiles.generate(file, Clock.systemUTC());
          out.println(
              "tally: wrote HMAC key "
                  + ring.active().id()
                  + " to "
                  + file
                  + " (mode 0600; never printed)");
        }
        out.flush();
        return 0;
      } catch (KeyException | AuditException e) {
        err.println("tally key generate: " + e.getMessage());
        return TallyCli.EXIT_USAGE;
      }
    }
  }
}
