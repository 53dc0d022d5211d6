package dev.tally.sidecar.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The Node fixtures under {@code src/test/node} installed into a work directory under {@code
 * target/}: the scripts are copied on every run, {@code npm ci} runs only when the lock file, the
 * manifest or the Node version changed (a marker in {@code node_modules} records what was
 * installed). Every child process is bounded in time and destroyed by {@link #close()}.
 */
final class NodeProject implements AutoCloseable {
  private static final String MARKER = ".tally-installed";
  private static final List<String> MANIFEST = List.of("package.json", "package-lock.json");
  private static final AtomicInteger STARTED = new AtomicInteger();

  private final Path dir;
  private final Path node;
  private final List<Process> processes = new ArrayList<>();

  private NodeProject(Path dir, Path node) {
    this.dir = dir;
    this.node = node;
  }

  /** A Node.js runtime found on {@code PATH}, with its version. */
  record Runtime(Path node, Path npm, String version) {
    int major() {
      return majorOf(version);
    }
  }

  /** The major version in a {@code node --version} answer ({@code v22.1.0} → 22); -1 if none. */
  static int majorOf(String version) {
    String v = version.startsWith("v") ? version.substring(1) : version;
    int dot = v.indexOf('.');
    try {
      return Integer.parseInt(dot < 0 ? v : v.substring(0, dot));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** {@code node} and {@code npm} on {@code PATH}, if both are there and node runs. */
  static Optional<Runtime> findRuntime() {
    Optional<Path> node = onPath("node");
    Optional<Path> npm = onPath("npm");
    if (node.isEmpty() || npm.isEmpty()) {
      return Optional.empty();
    }
    return version(node.get()).map(v -> new Runtime(node.get(), npm.get(), v));
  }

  /**
   * The Node.js runtime a test needs, or the reason it must be skipped: without Node.js 18+ and npm
   * the test is skipped, saying so on stderr, unless the {@code CI} environment variable is set,
   * where it fails (CI must run the tests that need Node).
   *
   * @param test the test's name, for the messages
   * @param purpose what CI must run, e.g. "the conformance suite"
   * @return the runtime, or empty after the skip message was printed
   * @throws AssertionError when Node is missing and {@code CI} is set
   */
  static Availability require(String test, String purpose) {
    Optional<Runtime> rt = findRuntime();
    String problem =
        rt.isEmpty()
            ? "node and npm were not found on PATH"
            : rt.get().major() < 18 ? "Node.js " + rt.get().version() + " is older than 18" : null;
    if (problem == null) {
      return new Availability(rt.get(), null);
    }
    String ci = System.getenv("CI");
    if (ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false")) {
      throw new AssertionError(problem + ", and CI is set: " + purpose + " must run in CI");
    }
    String skipped =
        test
            + " skipped: "
            + problem
            + " (install Node.js >= 18 and npm to run it; with CI set this is a failure)";
    System.err.println(skipped);
    return new Availability(null, skipped);
  }

  /** A runtime, or why there is none ({@link #require}). */
  record Availability(Runtime runtime, String skipped) {}

  private static Optional<Path> onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    boolean windows = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("win");
    for (String d : path.split(java.io.File.pathSeparator)) {
      for (String n : windows ? List.of(name + ".cmd", name + ".exe") : List.of(name)) {
        Path p = Path.of(d).resolve(n);
        if (Files.isRegularFile(p) && Files.isExecutable(p)) {
          return Optional.of(p);
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Copies the project from {@code source} into {@code dir} and runs {@code npm ci} there unless an
   * identical install is already in place; fails when npm does not finish within {@code timeout}.
   */
  static NodeProject install(Runtime rt, Path source, Path dir, Duration timeout)
      throws IOException {
    Files.createDirectories(dir);
    try (Stream<Path> files = Files.list(source)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        String n = f.getFileName().toString();
        if (Files.isRegularFile(f)
            && (n.endsWith(".mjs") || n.equals(".npmrc") || MANIFEST.contains(n))) {
          Files.copy(f, dir.resolve(n), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
    String want = fingerprint(dir, rt.version());
    Path marker = dir.resolve("node_modules").resolve(MARKER);
    String have = Files.isRegularFile(marker) ? Files.readString(marker).strip() : "";
    if (!want.equals(have)) {
      Result r =
          run(
              List.of(rt.npm().toString(), "ci", "--no-audit", "--no-fund", "--loglevel=error"),
              dir,
              timeout);
      if (r.exit() != 0) {
        throw new IllegalStateException(
            "npm ci in " + dir + " failed with exit code " + r.exit() + ":\n" + r.output());
      }
      Files.writeString(marker, want + "\n");
    }
    return new NodeProject(dir, rt.node());
  }

  private static String fingerprint(Path dir, String nodeVersion) throws IOException {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      for (String n : MANIFEST) {
        md.update(Files.readAllBytes(dir.resolve(n)));
        md.update((byte) 0);
      }
      md.update(nodeVersion.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The version {@code node --version} prints, if that executable runs. */
  static Optional<String> version(Path node) {
    try {
      Result r = run(List.of(node.toString(), "--version"), null, Duration.ofSeconds(20));
      return r.exit() == 0 ? Optional.of(r.output().strip()) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The directory the project is installed in. */
  Path dir() {
    return dir;
  }

  /**
   * Starts {@code node <script> <args>} in the project directory. Its stdin stays open (the
   * fixtures exit when it closes, so they cannot outlive the test JVM); stderr goes to {@code
   * <script>.<n>.log} next to it.
   */
  Child start(String script, String... args) throws IOException {
    return startWith(node, script, args);
  }

  /**
   * As {@link #start}, with another Node.js executable than the one on {@code PATH} (one the
   * project installed itself, say); {@code script} may be a path relative to the project.
   */
  Child startWith(Path nodeExecutable, String script, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(nodeExecutable.toString(), script));
    cmd.addAll(List.of(args));
    String name = Path.of(script).getFileName().toString();
    Path log = dir.resolve(name + "." + STARTED.incrementAndGet() + ".log");
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectError(log.toFile()).start();
    synchronized (processes) {
      processes.add(p);
    }
    return new Child(p, log);
  }

  /** Destroys every process this project started (SIGTERM, then SIGKILL after 5 s). */
  @Override
  public void close() {
    List<Process> all;
    synchronized (processes) {
      all = List.copyOf(processes);
      processes.clear();
    }
    for (Process p : all) {
      stop(p);
    }
  }

  private static void stop(Process p) {
    if (!p.isAlive()) {
      return;
    }
    p.destroy();
    try {
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** A running fixture: its stdout lines arrive on a queue read by a daemon thread. */
  static final class Child {
    private final Process process;
    private final Path log;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final StringBuffer transcript = new StringBuffer();

    private Child(Process process, Path log) {
      this.process = process;
      this.log = log;
      Thread t =
          new Thread(
              () -> {
                try (BufferedReader r =
                    new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                  for (String l = r.readLine(); l != null; l = r.readLine()) {
                    transcript.append(l).append('\n');
                    lines.add(l);
                  }
                } catch (IOException e) {
                  // The process went away; waiters time out or see its exit.
                }
              },
              "node-stdout-" + process.pid());
      t.setDaemon(true);
      t.start();
    }

    /** The first stdout line starting with {@code prefix}, waiting at most {@code timeout}. */
    String awaitLine(String prefix, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (true) {
        long left = deadline - System.nanoTime();
        String l = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
        if (l == null) {
          throw new AssertionError(
              "no stdout line starting with '"
                  + prefix
                  + "' within "
                  + timeout
                  + " (alive: "
                  + process.isAlive()
                  + "); stderr:\n"
                  + stderr());
        }
        if (l.startsWith(prefix)) {
          return l;
        }
      }
    }

    /** Waits for the exit code; destroys the process and fails after {@code timeout}. */
    int awaitExit(Duration timeout) throws InterruptedException {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("node did not exit within " + timeout + "; stderr:\n" + stderr());
      }
      return process.exitValue();
    }

    /** Every line the process wrote to stdout so far (also those {@link #awaitLine} consumed). */
    String stdout() {
      return transcript.toString();
    }

    /** What the process wrote to stderr so far. */
    String stderr() {
      try {
        return Files.isRegularFile(log) ? Files.readString(log) : "";
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The exit code and merged output of a finished command. */
  record Result(int exit, String output) {}

  private static Result run(List<String> cmd, Path dir, Duration timeout) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    if (dir != null) {
      pb.directory(dir.toFile());
    }
    Path out = Files.createTempFile("node-cmd", ".log");
    pb.redirectOutput(out.toFile());
    Process p = pb.start();
    p.getOutputStream().close();
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        throw new IllegalStateException(
            String.join(" ", cmd) + " did not finish within " + timeout + ":\n" + read(out));
      }
      return new Result(p.exitValue(), read(out));
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + cmd.get(0), e);
    } finally {
      Files.deleteIfExists(out);
    }
  }

  private static String read(Path f) throws IOException {
    return Files.readString(f, StandardCharsets.UTF_8);
  }
}
