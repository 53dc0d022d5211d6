package dev.tally.sidecar.cli;

import dev.tally.core.audit.AuditException;
import dev.tally.core.audit.AuditFiles;
import dev.tally.core.audit.AuditPublicKey;
import dev.tally.core.audit.AuditSigningKeys;
import dev.tally.core.audit.AuditTimeline;
import dev.tally.core.audit.AuditVerification;
import dev.tally.core.audit.AuditVerifier;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tally audit}: offline checks and reading of the audit journals. */
@Command(
    name = "audit",
    description = "Verifies and reads the hash-chained audit journals.",
    subcommands = {
      AuditCommand.Verify.class,
      AuditCommand.Show.class,
      AuditCommand.Key.class,
      AuditCommand.InstallKey.class
    })
final class AuditCommand implements Runnable {
  @Override
  public void run() {
    new picocli.CommandLine(this).usage(System.out);
  }

  /** {@code tally audit verify DIR}. */
  @Command(
      name = "verify",
      header = "Checks the hash chain and the signed checkpoints of the journals in DIR.",
      description = {
        "Checks the hash chain and the signed checkpoints of both journals in DIR.",
        "Prints 'ok: <n> entries, <m> checkpoints' and exits 0, or names the first bad entry and exits 1."
      })
  static final class Verify implements Callable<Integer>, TallyCli.Streams {
    @Parameters(paramLabel = "DIR", description = "The audit directory.")
    Path dir;

    @Option(
        names = "--public-key",
        description = "Public key file to check signatures with (default: the one in DIR).")
    Path publicKey;

    @Option(
        names = "--allow-tail",
        description = "Accept entries after the last checkpoint (a crash leaves them).")
    boolean allowTail;

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
        AuditVerification v = AuditVerifier.create().verify(dir, Optional.ofNullable(publicKey));
        out.println(v.message());
        return v.exitCode(allowTail);
      } catch (AuditException e) {
        out.println("bad: " + e.getMessage());
        return 1;
      }
    }
  }

  /** {@code tally audit show DIR [--execution ID]}. */
  @Command(
      name = "show",
      description = "Prints the timeline of one execution, or one line per execution.")
  static final class Show implements Callable<Integer>, TallyCli.Streams {
    @Parameters(paramLabel = "DIR", description = "The audit directory.")
    Path dir;

    @Option(names = "--execution", description = "An execution id (act_…).")
    String execution;

    PrintStream out = System.out;
    PrintStream err = System.err;

    @Override
    public void streams(InputStream in, PrintStream out, PrintStream err) {
      this.out = out;
      this.err = err;
    }

    @Override
    public Integer call() {
      if (!java.nio.file.Files.isRegularFile(dir.resolve(AuditFiles.ACTIVITY))) {
        err.println(
            "tally audit show: "
                + dir
                + ": no audit journal here (expected "
                + AuditFiles.ACTIVITY
                + ", beside a journal store in its audit/ directory)");
        return TallyCli.EXIT_USAGE;
      }
      try {
        out.print(AuditTimeline.render(dir, Optional.ofNullable(execution)));
        out.flush();
        return 0;
      } catch (AuditException e) {
        err.println("tally audit show: " + e.getMessage());
        return TallyCli.EXIT_USAGE;
      }
    }
  }

  /** {@code tally audit key DIR}. */
  @Command(
      name = "key",
      description = "Prints the public key that verifies the checkpoints in DIR.")
  static final class Key implements Callable<Integer>, TallyCli.Streams {
    @Parameters(paramLabel = "DIR", description = "The audit directory.")
    Path dir;

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
        out.print(AuditPublicKey.read(AuditFiles.publicKey(dir)).toText());
        out.flush();
        return 0;
      } catch (AuditException e) {
        err.println("tally audit key: " + e.getMessage());
        return TallyCli.EXIT_USAGE;
      }
    }
  }

  /** {@code tally audit install-key KEYFILE DIR}. */
  @Command(
      name = "install-key",
      header = "Copies an audit signing key into an audit directory as an owner-only file.",
      description = {
        "Copies the signing key KEYFILE (made by 'tally key generate --type audit') into DIR as"
            + " audit-signing.key, mode 0600, so the journals there are signed with it instead of"
            + " a key generated on first start. For keys mounted from a Kubernetes Secret, whose"
            + " files cannot be owner-only: run it in an init container before 'tally serve'.",
        "Does nothing if DIR already holds this key; refuses (exit 2, nothing written) if DIR"
            + " holds another key, since journals signed by one key cannot be continued under"
            + " another. The key is never printed."
      })
  static final class InstallKey implements Callable<Integer>, TallyCli.Streams {
    @Parameters(index = "0", paramLabel = "KEYFILE", description = "The signing key to install.")
    Path keyFile;

    @Parameters(
        index = "1",
        paramLabel = "DIR",
        description =
            "The audit directory: the sibling 'audit' of the journal store's directory (store"
                + " journal:/var/lib/tally/journal -> /var/lib/tally/audit).")
    Path dir;

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
        AuditSigningKeys.Installed r = AuditSigningKeys.install(keyFile, dir);
        String id = AuditSigningKeys.publicKeyOf(keyFile).keyId();
        out.println(
            r == AuditSigningKeys.Installed.COPIED
                ? "tally: installed audit signing key " + id + " in " + dir
                : "tally: " + dir + " already holds audit signing key " + id);
        out.flush();
        return 0;
      } catch (AuditException e) {
        err.println("tally audit install-key: " + e.getMessage());
        return TallyCli.EXIT_USAGE;
      }
    }
  }
}
