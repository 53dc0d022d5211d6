package dev.tally.sidecar.image;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image tarball {@code -Pimage} builds, checked without a container runtime: its config
 * (labels, user, entrypoint) is read from the tar, its layers are unpacked into a directory, and
 * the entrypoint runs there under {@code chroot} as the image's user, with a private {@code /proc}
 * (what a container runtime provides). Needs Linux and root (CI runs as root), {@code tar}, {@code
 * unshare} and {@code chroot}.
 */
class ImageIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String VERSION = System.getProperty("tally.version");

  @TempDir static Path work;
  static Path root;
  static JsonNode config;

  @BeforeAll
  static void unpack() throws Exception {
    Path tar = Path.of(System.getProperty("tally.image.tar"));
    assertThat(tar).as("built by -Pimage").isRegularFile();
    Path image = Files.createDirectories(work.resolve("image"));
    sh(List.of("tar", "-xf", tar.toString(), "-C", image.toString()), 60);
    JsonNode manifest = JSON.readTree(image.resolve("manifest.json").toFile()).get(0);
    config = JSON.readTree(image.resolve(manifest.get("Config").asText()).toFile());
    root = Files.createDirectories(work.resolve("root"));
    for (JsonNode layer : manifest.get("Layers")) {
      sh(
          List.of("tar", "-xzf", image.resolve(layer.asText()).toString(), "-C", root.toString()),
          60);
    }
    Files.createDirectories(root.resolve("proc"));
  }

  @Test
  void theConfigNamesTheVersionTheUserAndTheEntrypoint() {
    JsonNode c = config.get("config");
    assertThat(c.path("Labels").path("org.opencontainers.image.version").asText())
        .isEqualTo(VERSION);
    assertThat(c.path("Labels").path("org.opencontainers.image.licenses").asText())
        .isEqualTo("Apache-2.0");
    assertThat(c.path("User").asText()).isEqualTo("65532:65532");
    assertThat(c.path("Entrypoint").toString()).contains("dev.tally.sidecar.cli.TallyCli");
    assertThat(config.path("created").asText()).startsWith("1970-01-01");
    assertThat(root.resolve("opt/java/bin/java")).isExecutable();
    assertThat(root.resolve("etc/passwd")).content().contains("nonroot:x:65532:65532:");
  }

  @Test
  void theEntrypointPrintsTheBuildsVersionAsTheNonRootUser() throws Exception {
    Result r = inImage(List.of("-V"), 60);
    assertThat(r.code()).as(r.output()).isZero();
    assertThat(r.output()).isEqualTo("tally " + VERSION + "\n");
  }

  @Test
  void keysAConfigCheckAndTheDemoRunInTheMinimalRuntime() throws Exception {
    Path tmp = root.resolve("tmp/check");
    Files.createDirectories(tmp);
    Files.writeString(
        tmp.resolve("tally.yaml"),
        "upstream: {url: 'http://127.0.0.1:3000/mcp'}\n"
            + "hmac: {keyFile: /tmp/check/hmac.keys}\n"
            + "store: journal:/tmp/check/journal\n"
            + "tools:\n  create_ticket: {class: keyed, attachWindow: 30m}\n");
    sh(List.of("chmod", "-R", "a+rwX", tmp.toString()), 10);
    Result key = inImage(List.of("key", "generate", "/tmp/check/hmac.keys"), 60);
    assertThat(key.code()).as(key.output()).isZero();
    Result check = inImage(List.of("config", "check", "--no-env", "/tmp/check/tally.yaml"), 60);
    assertThat(check.code()).as(check.output()).isZero();
    assertThat(check.output()).startsWith("ok: /tmp/check/tally.yaml");

    // The whole path: Vert.x, the journal store, the gate, a replayed retry.
    Result demo = inImage(List.of("demo"), 120);
    assertThat(demo.code()).as(demo.output()).isZero();
    assertThat(demo.output()).contains("4 intended actions, 4 side effects");
  }

  record Result(int code, String output) {}

  /** Runs the image's entrypoint with {@code args}, as its user, in its environment only. */
  private static Result inImage(List<String> args, int timeoutSeconds) throws Exception {
    JsonNode c = config.get("config");
    List<String> cmd = new ArrayList<>(List.of("env", "-i"));
    c.get("Env").forEach(e -> cmd.add(e.asText()));
    cmd.addAll(
        List.of(
            which("unshare"),
            "--mount",
            "--pid",
            "--fork",
            "--mount-proc=" + root.resolve("proc"),
            which("chroot"),
            "--userspec=" + c.get("User").asText(),
            root.toString()));
    c.get("Entrypoint").forEach(e -> cmd.add(e.asText()));
    cmd.addAll(args);
    return run(cmd, timeoutSeconds);
  }

  private static String which(String tool) {
    for (String dir : List.of("/usr/bin", "/usr/sbin", "/bin", "/sbin")) {
      if (Files.isExecutable(Path.of(dir, tool))) {
        return dir + "/" + tool;
      }
    }
    throw new AssertionError(tool + " not found (the image test needs util-linux and coreutils)");
  }

  private static void sh(List<String> cmd, int timeoutSeconds) throws Exception {
    Result r = run(cmd, timeoutSeconds);
    if (r.code() != 0) {
      throw new IOException(cmd + " exited " + r.code() + ": " + r.output());
    }
  }

  private static Result run(List<String> cmd, int timeoutSeconds) throws Exception {
    Path log = Files.createTempFile(work, "run", ".log");
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(cmd + " did not finish in " + timeoutSeconds + " s");
    }
    return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }
}
