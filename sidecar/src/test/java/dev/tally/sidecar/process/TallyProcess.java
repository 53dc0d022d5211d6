package dev.tally.sidecar.process;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code tally} command running from the executable jar as a separate JVM, with its stdout and
 * stderr in files. Every process started here is destroyed forcibly by {@link #close()} and, as a
 * last resort, when the test JVM exits.
 */
final class TallyProcess implements AutoCloseable {
  /** Small, quick-starting JVMs: the machine running the tests is shared. */
  static final List<String> SMALL_JVM =
      List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-XX:+UseSerialGC");

  private static final Pattern LISTENING =
      Pattern.compile(
          "tally: MCP on http://(\\S+):(\\d+)(/\\S*) -> .*; admin on http://(\\S+):(\\d+); store .*");
  private static final AtomicInteger SEQ = new AtomicInteger();
  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "tally-reaper"));
  }

  private final Process process;
  private final Path out;
  private final Path err;
  private final String label;
  private int mcpPort = -1;
  private int adminPort = -1;
  private String mcpPath;

  private TallyProcess(Process process, Path out, Path err, String label) {
    this.process = process;
    this.out = out;
    this.err = err;
    this.label = label;
  }

  /** The executable jar built in the {@code package} phase. */
  static Path jar() {
    Path jar = Path.of(System.getProperty("tally.jar", "target/tally-sidecar.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          jar.toAbsolutePath() + " is missing: run the integration tests with mvn verify");
    }
    return jar;
  }

  /**
   * Starts {@code java [jvmOptions] -jar tally-sidecar.jar [args]} in {@code workDir}, with the
   * test JVM's environment minus {@code TALLY_*} variables, plus {@code env}.
   */
  static TallyProcess start(
      Path workDir, List<String> jvmOptions, Map<String, String> env, List<String> args)
      throws IOException {
    Files.createDirectories(workDir);
    int n = SEQ.incrementAndGet();
    String label = (args.isEmpty() ? "tally" : args.get(0)) + "-" + n;
    Path out = workDir.resolve(label + ".out");
    Path err = workDir.resolve(label + ".err");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.add("-jar");
    cmd.add(jar().toAbsolutePath().toString());
    cmd.addAll(args);
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .directory(workDir.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("TALLY_"));
    pb.environment().putAll(env);
    Process p = pb.start();
    LIVE.add(p);
    p.onExit().thenRun(() -> LIVE.remove(p));
    return new TallyProcess(p, out, err, label);
  }

  /** {@code serve} with a configuration file and ports chosen by the system. */
  static TallyProcess serve(
      Path workDir, Path config, List<String> jvmOptions, Map<String, String> env, String... extra)
      throws IOException {
    List<String> args = new ArrayList<>();
    args.add("serve");
    args.add("--config");
    args.add(config.toAbsolutePath().toString());
    args.add("--listen");
    args.add("127.0.0.1:0");
    args.add("--admin");
    args.add("127.0.0.1:0");
    args.addAll(List.of(extra));
    return start(workDir, jvmOptions, env, args);
  }

  private static java.io.File nullDevice() {
    return new java.io.File(
        System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).contains("win")
            ? "NUL"
            : "/dev/null");
  }

  /** Waits for the line that names the bound ports; fails if the process exits first. */
  TallyProcess awaitListening(Duration max) throws InterruptedException {
    Poll.until(
        max,
        () -> {
          if (parsePorts()) {
            return true;
          }
          if (!process.isAlive()) {
            throw new AssertionError(label + " exited " + process.exitValue() + " " + output());
          }
          return false;
        },
        () -> label + " did not report its ports " + output());
    return this;
  }

  private boolean parsePorts() {
    for (String line : stdout().split("\n")) {
      Matcher m = LISTENING.matcher(line.strip());
      if (m.matches()) {
        mcpPort = Integer.parseInt(m.group(2));
        mcpPath = m.group(3);
        adminPort = Integer.parseInt(m.group(5));
        return true;
      }
    }
    return false;
  }

  URI mcp() {
    return URI.create("http://127.0.0.1:" + mcpPort + mcpPath);
  }

  URI admin(String path) {
    return URI.create("http://127.0.0.1:" + adminPort + path);
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** {@code kill -9}: SIGKILL on Linux; returns once the process is gone. */
  void kill() throws InterruptedException {
    process.toHandle().destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError(label + " survived SIGKILL for 30s");
    }
  }

  /** {@code kill -TERM}: asks for a drain. */
  void terminate() {
    process.toHandle().destroy();
  }

  /** The exit code; fails if the process still runs after {@code max}. */
  int awaitExit(Duration max) throws InterruptedException {
    if (!process.waitFor(max.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError(label + " still running after " + max + " " + output());
    }
    return process.exitValue();
  }

  String stdout() {
    return read(out);
  }

  String stderr() {
    return read(err);
  }

  /** Both streams, for failure messages. */
  String output() {
    return "[" + label + " stdout: " + stdout().strip() + " | stderr: " + stderr().strip() + "]";
  }

  private static String read(Path p) {
    try {
      return Files.readString(p, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** Destroys the process forcibly if it still runs, and waits (bounded) for it to go. */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    process.toHandle().destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return label + "(pid " + process.pid() + ")";
  }
}
