package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tally.sidecar.cli.TallyCli;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code tally} commands that need no server, run in this JVM on captured streams. */
class TallyCliTest {
  private static final Path JCS = Path.of("..", "core", "src", "test", "resources", "jcs");
  private static final Pattern FINGERPRINT =
      Pattern.compile("(?m)^fingerprint: +(hmac-sha256:k1:[0-9a-f]{64})$");
  private static final Pattern RECORD = Pattern.compile("(?m)^canonical record: (\\{.*\\})$");

  @TempDir Path dir;

  /** One run: exit code and what it wrote. */
  record Run(int code, byte[] stdout, String stderr) {
    String out() {
      return new String(stdout, StandardCharsets.UTF_8);
    }
  }

  private static Run run(byte[] stdin, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = TallyCli.run(new ByteArrayInputStream(stdin), o, e, args);
    }
    return new Run(code, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
  }

  private static Run run(String stdin, String... args) {
    return run(stdin.getBytes(StandardCharsets.UTF_8), args);
  }

  private Path keyFile(int bytes) throws IOException {
    byte[] key = new byte[bytes];
    for (int i = 0; i < bytes; i++) {
      key[i] = (byte) (i * 7 + 3);
    }
    Path f = dir.resolve("k" + bytes + ".keys");
    Files.writeString(f, "k1:" + Base64.getEncoder().encodeToString(key) + "\n");
    return f;
  }

  private static void assertOneLine(String stderr) {
    assertThat(stderr).endsWith("\n");
    assertThat(stderr.strip()).isNotEmpty().doesNotContain("\n");
  }

  @Test
  void canonicalizeWritesTheExactBytesOfTheRfc8785Vectors() throws IOException {
    assumeTrue(Files.isDirectory(JCS.resolve("input")), "no JCS vectors in " + JCS);
    List<Path> inputs;
    try (Stream<Path> s = Files.list(JCS.resolve("input"))) {
      inputs = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    assertThat(inputs).isNotEmpty();
    for (Path in : inputs) {
      byte[] expected = Files.readAllBytes(JCS.resolve("output").resolve(in.getFileName()));
      Run r = run(Files.readAllBytes(in), "canonicalize");
      assertThat(r.code()).as(in + ": " + r.stderr()).isZero();
      assertThat(r.stdout()).as(in.getFileName().toString()).isEqualTo(expected);
      assertThat(r.stderr()).isEmpty();
    }
  }

  @Test
  void canonicalizeRefusesADuplicateKeyNamingItsPointer() {
    Run r = run("{\"a\":1,\"a\":2}", "canonicalize");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.stdout()).isEmpty();
    assertOneLine(r.stderr());
    assertThat(r.stderr()).startsWith("tally canonicalize: ").contains(" /a");

    Run nested = run("{\"x\":[{\"b\":1,\"b\":1}]}", "canonicalize");
    assertThat(nested.code()).isEqualTo(2);
    assertThat(nested.stderr()).contains("/x/0/b");
  }

  @Test
  void fingerprintIsStableAcrossKeyOrderAndWhitespaceAndChangesWithTheActor() throws IOException {
    String key = keyFile(32).toString();
    Run a =
        run(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"deploy\","
                + "\"arguments\":{\"service\":\"api\",\"version\":\"1.2\",\"n\":1.0}}}",
            "fingerprint",
            "--key-file",
            key,
            "--actor",
            "alice");
    Run b =
        run(
            "{ \"params\" : {\n  \"arguments\" : { \"n\" : 1, \"version\":\"1.2\",  \"service\" : \"api\" },\n"
                + "  \"name\" : \"deploy\" }, \"method\":\"tools/call\", \"id\": 99, \"jsonrpc\":\"2.0\" }",
            "fingerprint",
            "--key-file",
            key,
            "--actor",
            "alice");
    Run params =
        run(
            "{\"name\":\"deploy\",\"arguments\":{\"version\":\"1.2\",\"service\":\"api\",\"n\":1}}",
            "fingerprint",
            "--key-file",
            key,
            "--actor",
            "alice");
    Run bob =
        run(
            "{\"name\":\"deploy\",\"arguments\":{\"version\":\"1.2\",\"service\":\"api\",\"n\":1}}",
            "fingerprint",
            "--key-file",
            key,
            "--actor",
            "bob");
    for (Run r : List.of(a, b, params, bob)) {
      assertThat(r.code()).as(r.stderr()).isZero();
      assertThat(r.stderr()).isEmpty();
    }
    String fa = group(FINGERPRINT, a.out());
    assertThat(group(FINGERPRINT, b.out())).isEqualTo(fa);
    assertThat(group(FINGERPRINT, params.out())).isEqualTo(fa);
    assertThat(group(RECORD, b.out())).isEqualTo(group(RECORD, a.out()));
    assertThat(group(RECORD, a.out()))
        .contains("\"actor\":\"alice\"")
        .contains("\"arguments\":{\"n\":1,\"service\":\"api\",\"version\":\"1.2\"}")
        .contains("\"tool\":\"deploy\"");
    assertThat(group(FINGERPRINT, bob.out())).isNotEqualTo(fa);
    assertThat(group(RECORD, bob.out())).contains("\"actor\":\"bob\"");
  }

  @Test
  void fingerprintNeverPrintsAValueTheConfigMarksSecret() throws IOException {
    Path config = dir.resolve("tally.yaml");
    Files.writeString(
        config,
        "tools:\n  create_ticket:\n    fingerprint:\n      secrets: [/apiToken, /auth/password]\n");
    String secret = "s3cr3t-Value-0123456789";
    String password = "hunter2-Pa55word";
    Run r =
        run(
            "{\"name\":\"create_ticket\",\"arguments\":{\"title\":\"t\",\"apiToken\":\""
                + secret
                + "\",\"auth\":{\"user\":\"u\",\"password\":\""
                + password
                + "\"}}}",
            "fingerprint",
            "--key-file",
            keyFile(32).toString(),
            "--config",
            config.toString());
    assertThat(r.code()).as(r.stderr()).isZero();
    assertThat(r.out() + r.stderr()).doesNotContain(secret).doesNotContain(password);
    assertThat(r.out()).doesNotContain("s3cr3t").doesNotContain("hunter2");
    assertThat(group(RECORD, r.out())).contains("\"apiToken\":\"secret:");
    assertThat(group(FINGERPRINT, r.out())).isNotEmpty();
  }

  @Test
  void fingerprintRefusesAShortKeyWithoutPrintingIt() throws IOException {
    Path shortKey = keyFile(16);
    Run r = run("{\"name\":\"x\"}", "fingerprint", "--key-file", shortKey.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.stdout()).isEmpty();
    assertOneLine(r.stderr());
    assertThat(r.stderr()).contains(shortKey.toString()).contains("16 bytes").contains("32");
    String material = Files.readString(shortKey).strip().substring("k1:".length());
    assertThat(r.stderr()).doesNotContain(material);
  }

  @Test
  void badOptionsAndSettingsExitTwoWithOneLineNamingThem() {
    List<Run> runs = new ArrayList<>();
    Run unknown = run("", "serve", "--bogus");
    runs.add(unknown);
    assertThat(unknown.stderr()).contains("--bogus");
    Run listen = run("", "serve", "--upstream", "http://127.0.0.1:9/mcp", "--listen", "nonsense");
    runs.add(listen);
    assertThat(listen.stderr()).contains("sidecar.listen").contains("nonsense");
    Run upstream = run("", "serve", "--upstream", "ftp://x", "--listen", "127.0.0.1:0");
    runs.add(upstream);
    assertThat(upstream.stderr()).contains("upstream.url");
    Run noKey = run("{}", "fingerprint");
    runs.add(noKey);
    assertThat(noKey.stderr()).contains("--key-file");
    Run depth = run("{}", "canonicalize", "--max-depth", "deep");
    runs.add(depth);
    assertThat(depth.stderr()).contains("--max-depth");
    for (Run r : runs) {
      assertThat(r.code()).as(r.stderr()).isEqualTo(TallyCli.EXIT_USAGE);
      assertOneLine(r.stderr());
    }
  }

  @Test
  void aBadConfigFileIsNamedByKey() throws IOException {
    Path config = dir.resolve("bad.yaml");
    Files.writeString(config, "tools:\n  create_ticket:\n    attachWindow: -5m\n");
    Run r =
        run(
            "",
            "serve",
            "--upstream",
            "http://127.0.0.1:9/mcp",
            "--config",
            config.toString(),
            "--listen",
            "127.0.0.1:0");
    assertThat(r.code()).isEqualTo(2);
    assertOneLine(r.stderr());
    assertThat(r.stderr()).contains("tools.create_ticket.attachWindow").contains("-5m");
  }

  private static String group(Pattern p, String text) {
    Matcher m = p.matcher(text);
    assertThat(m.find()).as(p + " in " + text).isTrue();
    return m.group(1);
  }

  // ---- tally audit ----------------------------------------------------------------------------

  /** Writes an audit directory with {@code executions} executions taken to delivered. */
  private static List<String> writeAudit(
      dev.tally.core.audit.AuditJournals j, java.time.Clock clock, int executions) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < executions; i++) {
      dev.tally.core.execution.Execution e =
          dev.tally.core.testing.Executions.candidate(clock).build();
      j.transition(null, e);
      for (dev.tally.core.execution.ExecutionState to :
          List.of(
              dev.tally.core.execution.ExecutionState.AUTHORIZED,
              dev.tally.core.execution.ExecutionState.DISPATCHED)) {
        dev.tally.core.execution.Execution next =
            e.apply(dev.tally.core.execution.Transition.to(e, to, clock.instant()));
        j.transition(e, next);
        e = next;
      }
      ids.add(e.id().value());
    }
    j.flush();
    return ids;
  }

  private static dev.tally.core.audit.AuditJournals openAudit(Path dir, int checkpointEvery) {
    return dev.tally.core.audit.AuditJournals.open(
        dir, dev.tally.core.audit.AuditOptions.defaults().withCheckpointEvery(checkpointEvery));
  }

  @Test
  void auditVerifyShowAndKeyReadAJournalAndCatchATamperedByte() throws IOException {
    Path audit = dir.resolve("audit");
    List<String> ids;
    try (dev.tally.core.audit.AuditJournals j = openAudit(audit, 4)) {
      ids = writeAudit(j, java.time.Clock.systemUTC(), 3);
    }
    Run ok = run("", "audit", "verify", audit.toString());
    assertThat(ok.code()).as(ok.out() + ok.stderr()).isZero();
    assertThat(ok.out()).matches("ok: \\d+ entries, \\d+ checkpoints\\n");

    Run key = run("", "audit", "key", audit.toString());
    assertThat(key.code()).isZero();
    assertThat(key.out()).isEqualTo(Files.readString(audit.resolve("audit-public.key")));

    Run overview = run("", "audit", "show", audit.toString());
    assertThat(overview.code()).isZero();
    assertThat(overview.out()).contains(ids.get(0), ids.get(1), ids.get(2));
    Run timeline = run("", "audit", "show", audit.toString(), "--execution", ids.get(1));
    assertThat(timeline.code()).isZero();
    assertThat(timeline.out())
        .startsWith("Execution " + ids.get(1))
        .contains("dispatched")
        .contains("same fingerprint");

    Path activity = audit.resolve("activity.jsonl");
    byte[] bytes = Files.readAllBytes(activity);
    int at = bytes.length / 2;
    while (bytes[at] == '\n' || bytes[at] == '"') {
      at++;
    }
    bytes[at] ^= 0x01;
    Files.write(activity, bytes);
    Run bad = run("", "audit", "verify", audit.toString());
    assertThat(bad.code()).isOne();
    assertThat(bad.out()).startsWith("bad: ").containsPattern("entry seq \\d+ at byte \\d+");

    Run missing = run("", "audit", "show", dir.resolve("nowhere").toString());
    assertThat(missing.code()).isEqualTo(TallyCli.EXIT_USAGE);
    assertOneLine(missing.stderr());
  }

  @Test
  void auditVerifyReportsAnUnsignedTailAndChecksAGivenPublicKey() throws IOException {
    Path audit = dir.resolve("audit");
    Path other = dir.resolve("other");
    try (dev.tally.core.audit.AuditJournals j = openAudit(other, 4)) {
      writeAudit(j, java.time.Clock.systemUTC(), 1);
    }
    try (dev.tally.core.audit.AuditJournals j = openAudit(audit, 1000)) {
      writeAudit(j, java.time.Clock.systemUTC(), 2); // six entries, no checkpoint yet
      Run tail = run("", "audit", "verify", audit.toString());
      assertThat(tail.code()).as(tail.out()).isOne();
      assertThat(tail.out()).startsWith("tail: ");
      Run allowed = run("", "audit", "verify", audit.toString(), "--allow-tail");
      assertThat(allowed.code()).as(allowed.out()).isZero();
    }
    Run signed = run("", "audit", "verify", audit.toString());
    assertThat(signed.code()).as("closing signs the tail: " + signed.out()).isZero();
    Run foreign =
        run(
            "",
            "audit",
            "verify",
            audit.toString(),
            "--public-key",
            other.resolve("audit-public.key").toString());
    assertThat(foreign.code()).as(foreign.out()).isOne();
    assertThat(foreign.out()).startsWith("bad: ");
  }
}
