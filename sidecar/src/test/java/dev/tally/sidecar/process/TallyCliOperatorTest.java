package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.audit.AuditJournals;
import dev.tally.core.audit.AuditOptions;
import dev.tally.core.fingerprint.KeyFiles;
import dev.tally.sidecar.cli.TallyCli;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator meets first: help and version, checking a configuration before anything is
 * written, busy ports, and making key files. Runs the CLI in this JVM on captured streams.
 */
class TallyCliOperatorTest {
  private static final Path EXAMPLE = Path.of("..", "config", "tally.example.yaml");
  private static final Path SCHEMA = Path.of("..", "config", "tally.schema.json");

  @TempDir Path dir;

  record Run(int code, String out, String err) {}

  private static Run run(String stdin, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code =
          TallyCli.run(
              new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), o, e, args);
    }
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  // ---- help and version -----------------------------------------------------------------------

  private static final List<String> COMMANDS =
      List.of(
          "serve",
          "config",
          "config check",
          "key",
          "key generate",
          "demo",
          "canonicalize",
          "fingerprint",
          "audit",
          "audit verify",
          "audit show",
          "audit key",
          "audit install-key");

  @Test
  void everyCommandAnswersHelpWithItsUsageAndExitZero() {
    for (String command : COMMANDS) {
      for (String flag : List.of("--help", "-h")) {
        List<String> args = new ArrayList<>(List.of(command.split(" ")));
        args.add(flag);
        Run r = run("", args.toArray(String[]::new));
        assertThat(r.code()).as(command + " " + flag + ": " + r.err()).isZero();
        assertThat(r.err()).as(command).isEmpty();
        assertThat(r.out()).as(command).contains("Usage: tally " + command);
      }
    }
  }

  @Test
  void topLevelHelpListsEveryCommandWithACompleteSentence() {
    Run r = run("", "--help");
    assertThat(r.code()).isZero();
    String commands = r.out().substring(r.out().indexOf("Commands:"));
    Matcher m = Pattern.compile("(?m)^  (\\S+) +(.*(?:\\n {4,}.*)*)").matcher(commands);
    List<String> seen = new ArrayList<>();
    while (m.find()) {
      String text = m.group(2).replaceAll("\\s+", " ").strip();
      seen.add(m.group(1));
      assertThat(text).as(m.group(1)).endsWith(".");
    }
    assertThat(seen)
        .contains("serve", "config", "key", "demo", "canonicalize", "fingerprint", "audit");
  }

  @Test
  void versionIsTheOneTheBuildWrote() {
    String expected = System.getProperty("tally.version");
    assertThat(expected).as("surefire passes -Dtally.version").isNotBlank();
    for (String flag : List.of("-V", "--version")) {
      Run r = run("", flag);
      assertThat(r.code()).isZero();
      assertThat(r.out()).isEqualTo("tally " + expected + "\n");
    }
    assertThat(run("", "serve", "-V").out()).isEqualTo("tally " + expected + "\n");
  }

  @Test
  void serveHelpNamesEveryStoreAndTheAdminTokenRule() {
    String help = run("", "serve", "--help").out().replaceAll("\\s+", " ");
    assertThat(help)
        .contains("memory | journal:DIR | postgres://")
        .contains("TALLY_ADMIN_TOKEN")
        .contains("admin.tokenFile");
  }

  // ---- configuration checked before anything touches the disk ---------------------------------

  /** The example configuration, with its absolute paths moved under the test's directory. */
  private Path example(String extra) throws IOException {
    String text =
        Files.readString(EXAMPLE)
            .replace("/var/lib/tally/journal", dir.resolve("var/lib/tally/journal").toString())
            .replace("/etc/tally/hmac.keys", dir.resolve("etc/tally/hmac.keys").toString());
    assertThat(text).contains(dir.toString());
    Path f = dir.resolve("tally.yaml");
    Files.writeString(f, text + extra);
    return f;
  }

  @Test
  void theExampleConfigIsRefusedForItsMissingKeyBeforeAnythingIsCreated() throws IOException {
    Path config = example("");
    Run r =
        run(
            "",
            "serve",
            "--config",
            config.toString(),
            "--upstream",
            "http://127.0.0.1:9/mcp",
            "--listen",
            "127.0.0.1:0",
            "--admin",
            "127.0.0.1:0");
    assertThat(r.code()).as(r.err()).isEqualTo(TallyCli.EXIT_USAGE);
    assertThat(r.err())
        .contains("hmac.keyFile")
        .contains(dir.resolve("etc/tally/hmac.keys").toString())
        .contains("tally key generate");
    assertThat(dir.resolve("var")).doesNotExist();
    assertThat(dir.resolve("etc")).doesNotExist();
  }

  @Test
  void configCheckPassesTheExampleOnceItsKeyExistsAndWritesNothing() throws IOException {
    Path key = dir.resolve("etc/tally/hmac.keys");
    Run gen = run("", "key", "generate", key.toString());
    assertThat(gen.code()).as(gen.err()).isZero();
    Path config = example("\nupstream:\n  url: http://127.0.0.1:3000/mcp\n");
    Run ok = run("", "config", "check", "--no-env", config.toString());
    assertThat(ok.code()).as(ok.err()).isZero();
    assertThat(ok.out()).startsWith("ok: " + config);
    Run core = run("", "config", "check", "--no-env", "--core-only", example("").toString());
    assertThat(core.code()).as(core.err()).isZero();
    assertThat(dir.resolve("var")).doesNotExist();
  }

  @Test
  void theSchemaCatchesWhatOnlyItKnowsAndTheCoreWordsTheRest() throws IOException {
    Path f = dir.resolve("bad.yaml");
    Files.writeString(
        f,
        "upstream: {url: 'http://127.0.0.1:9/mcp'}\n"
            + "limits: {maxJsonDepth: '64'}\n" // a string: the core takes it, the schema not
            + "tools:\n  t:\n    attachWindow: -5m\n    attachWait:\n"); // empty: unset, no error
    Run r = run("", "config", "check", "--no-env", f.toString());
    assertThat(r.code()).as(r.err()).isEqualTo(TallyCli.EXIT_USAGE);
    assertThat(r.err()).contains("2 problems");
    assertThat(r.err())
        .contains("limits.maxJsonDepth: 64 (expected per config/tally.schema.json: ")
        .contains("tools.t.attachWindow: -5m (expected: a positive duration");
    assertThat(r.err()).doesNotContain("attachWait");

    Run serve = run("", "serve", "--config", f.toString(), "--store", "memory");
    assertThat(serve.code()).isEqualTo(TallyCli.EXIT_USAGE);
    assertThat(serve.err()).contains("limits.maxJsonDepth").contains("tally.schema.json");
  }

  @Test
  void theBundledSchemaIsTheRepositorysSchema() throws IOException {
    try (InputStream in =
        TallyCli.class.getResourceAsStream("/dev/tally/sidecar/config/tally.schema.json")) {
      assertThat(in).isNotNull();
      assertThat(in.readAllBytes()).isEqualTo(Files.readAllBytes(SCHEMA));
    }
  }

  // ---- busy ports ------------------------------------------------------------------------------

  @Test
  void aBusyPortIsNamedWithItsKeyAndNothingIsCreated() throws IOException {
    InetAddress loopback = InetAddress.getLoopbackAddress();
    Path journal = dir.resolve("journal");
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(loopback, 0));
      String busy = "127.0.0.1:" + taken.getLocalPort();
      Run mcp =
          run(
              "",
              "serve",
              "--upstream",
              "http://127.0.0.1:9/mcp",
              "--store",
              "journal:" + journal,
              "--listen",
              busy,
              "--admin",
              "127.0.0.1:0");
      assertThat(mcp.code()).as(mcp.err()).isEqualTo(TallyCli.EXIT_START);
      assertThat(mcp.err()).contains("sidecar.listen").contains(busy).contains("--listen");
      Run admin =
          run(
              "",
              "serve",
              "--upstream",
              "http://127.0.0.1:9/mcp",
              "--store",
              "journal:" + journal,
              "--listen",
              "127.0.0.1:0",
              "--admin",
              busy);
      assertThat(admin.code()).as(admin.err()).isEqualTo(TallyCli.EXIT_START);
      assertThat(admin.err()).contains("admin.listen").contains(busy).contains("--admin");
    }
    assertThat(journal).doesNotExist();
    assertThat(dir.resolve("audit")).doesNotExist();
  }

  // ---- key files -------------------------------------------------------------------------------

  @Test
  void keyGenerateWritesAnOwnerOnlyHmacKeyOnceAndNeverPrintsIt() throws IOException {
    Path key = dir.resolve("hmac.keys");
    Run r = run("", "key", "generate", key.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(KeyFiles.load(key).active().id()).matches("k\\d{8}");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key)))
        .isEqualTo("rw-------");
    String material = keyMaterial(key);
    assertThat(r.out() + r.err()).doesNotContain(material).contains(key.toString());

    byte[] before = Files.readAllBytes(key);
    Run again = run("", "key", "generate", key.toString());
    assertThat(again.code()).isEqualTo(TallyCli.EXIT_USAGE);
    assertThat(again.err()).contains("already exists");
    assertThat(Files.readAllBytes(key)).isEqualTo(before);
  }

  private static String keyMaterial(Path key) throws IOException {
    for (String line : Files.readAllLines(key)) {
      if (!line.startsWith("#") && line.contains(":")) {
        return line.substring(line.indexOf(':') + 1);
      }
    }
    throw new AssertionError("no key line in " + key);
  }

  @Test
  void anAuditKeyFromAGroupReadableSecretIsInstalledOwnerOnlyAndSignsTheJournals()
      throws IOException {
    Path secret = dir.resolve("secret/audit-signing.key");
    Files.createDirectories(secret.getParent());
    Run gen = run("", "key", "generate", "--type", "audit", secret.toString());
    assertThat(gen.code()).as(gen.err()).isZero();
    assertThat(gen.out()).contains("tally-audit-key-v1 ed25519 ");
    // What a Kubernetes Secret volume with fsGroup looks like: group-readable.
    Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("r--r-----"));

    Path audit = dir.resolve("data/audit");
    Run install = run("", "audit", "install-key", secret.toString(), audit.toString());
    assertThat(install.code()).as(install.err()).isZero();
    assertThat(install.out()).contains("installed");
    Path installed = audit.resolve("audit-signing.key");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(installed)))
        .isEqualTo("rw-------");
    Run twice = run("", "audit", "install-key", secret.toString(), audit.toString());
    assertThat(twice.code()).as(twice.err()).isZero();
    assertThat(twice.out()).contains("already holds");

    try (AuditJournals j = AuditJournals.open(audit, AuditOptions.defaults())) {
      assertThat(gen.out()).contains(j.publicKey().toText().strip());
    }

    Path other = dir.resolve("other.key");
    assertThat(run("", "key", "generate", "--type", "audit", other.toString()).code()).isZero();
    byte[] before = Files.readAllBytes(installed);
    Run conflict = run("", "audit", "install-key", other.toString(), audit.toString());
    assertThat(conflict.code()).isEqualTo(TallyCli.EXIT_USAGE);
    assertThat(conflict.err()).contains("holds signing key");
    assertThat(Files.readAllBytes(installed)).isEqualTo(before);
    String seed =
        Files.readString(secret)
            .lines()
            .filter(l -> !l.startsWith("#"))
            .findFirst()
            .orElseThrow()
            .split(" ")[3];
    assertThat(gen.out() + install.out() + conflict.err()).doesNotContain(seed);
  }

  // ---- fingerprint -H
  // ----------------------------------------------------------------------------

  @Test
  void fingerprintTakesHeadersAsNameColonValueAndNameEqualsValue() throws IOException {
    Path key = dir.resolve("k.keys");
    assertThat(run("", "key", "generate", key.toString()).code()).isZero();
    String call = "{\"name\":\"deploy\",\"arguments\":{\"service\":\"api\"}}";
    Run none = run(call, "fingerprint", "--key-file", key.toString());
    Run colon = run(call, "fingerprint", "--key-file", key.toString(), "-H", "Idempotency-Key:k-1");
    Run spaced =
        run(call, "fingerprint", "--key-file", key.toString(), "-H", "Idempotency-Key: k-1");
    Run equals =
        run(call, "fingerprint", "--key-file", key.toString(), "--header", "idempotency-key=k-1");
    for (Run r : List.of(none, colon, spaced, equals)) {
      assertThat(r.code()).as(r.err()).isZero();
    }
    assertThat(none.out()).contains("matched by:       fingerprint");
    assertThat(colon.out()).contains("matched by:       idempotency_key");
    assertThat(spaced.out()).isEqualTo(colon.out());
    assertThat(equals.out()).isEqualTo(colon.out());

    Run scope =
        run(call, "fingerprint", "--key-file", key.toString(), "-H", "Tally-Intent-Scope:run=7");
    assertThat(scope.out()).contains("\"intent_scope\":\"run:run=7\"");

    Run bad =
        run(call, "fingerprint", "--key-file", key.toString(), "-H", "Bearer s3cr3t-token-value");
    assertThat(bad.code()).isEqualTo(TallyCli.EXIT_USAGE);
    assertThat(bad.err()).contains("-H number 1").doesNotContain("s3cr3t");
  }
}
