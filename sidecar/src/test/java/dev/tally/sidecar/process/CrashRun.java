package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.sidecar.process.CountingUpstream.Receipt;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One crash point's run: a journal directory reused by a sequence of {@code tally serve} processes,
 * each killed with {@code SIGKILL} and followed by the next, and the checks that a retry after the
 * restart makes (ARCHITECTURE.md §5–§6, docs/tool-results.md).
 */
final class CrashRun implements AutoCloseable {
  static final Duration START = Duration.ofSeconds(60);
  static final Duration ANSWER = Duration.ofSeconds(60);
  private static final Set<String> HAS_RESULT =
      Set.of("completed", "completed_not_delivered", "delivered");

  /** One logical action of the agent: a tool, a unique title, an idempotency key or null. */
  record Call(String tool, String title, String key) {}

  /**
   * What was known right after a kill: the agent's answer (null: none) and what the upstream had
   * received.
   */
  record Crash(Call call, McpClient.Answer original, List<Receipt> seen) {}

  final String point;
  final Path dir;
  final CountingUpstream upstream;
  final McpClient client;
  private final Path config;
  private final List<String> jvm;
  private final AtomicLong rpcIds = new AtomicLong(1000);
  private final Map<String, Integer> outcomes = new TreeMap<>();
  private final List<Call> calls = new ArrayList<>();

  /** Executions a restart found dispatched and recorded as outcome_unknown. */
  private final List<String> settledByRestart = new ArrayList<>();

  private TallyProcess process;
  private int starts;
  private long startNanos;
  private long startingNanos;
  private long verifyingNanos;

  CrashRun(
      String point, Path dir, CountingUpstream upstream, McpClient client, List<String> extraJvm)
      throws IOException {
    this.point = point;
    this.dir = dir;
    this.upstream = upstream;
    this.client = client;
    this.jvm = new ArrayList<>(TallyProcess.SMALL_JVM);
    this.jvm.addAll(extraJvm);
    this.config = dir.resolve("tally.yaml");
    Files.createDirectories(dir);
    Files.writeString(
        config,
        "upstream:\n  url: "
            + upstream.url()
            + "\nsidecar:\n  eventLoops: 1\n"
            + "store: journal:"
            + journal()
            + "\ntools:\n  default:\n    attachWait: 5s\n  "
            + CountingUpstream.KEYED
            + ":\n    class: keyed\n");
  }

  Path journal() {
    return dir.resolve("journal");
  }

  /** The {@code i}-th call of this run: the four combinations of tool class and matching. */
  Call call(int i) {
    return call(i, point + "-" + i);
  }

  /** An ordinary call made before the {@code i}-th attempt. */
  Call warmUp(int i) {
    return call(i, point + "-warm-" + i);
  }

  private Call call(int i, String title) {
    boolean keyed = i % 2 == 1;
    boolean withKey = (i / 2) % 2 == 0;
    Call c =
        new Call(
            keyed ? CountingUpstream.KEYED : CountingUpstream.IRREVERSIBLE,
            title,
            withKey ? "key-" + title : null);
    synchronized (calls) {
      calls.add(c);
    }
    return c;
  }

  long rpcId() {
    return rpcIds.incrementAndGet();
  }

  TallyProcess process() {
    return process;
  }

  /** Starts the next process on the journal. */
  void start() throws Exception {
    start(List.of());
  }

  /**
   * Starts the next process on the journal with more settings for this process only: JVM options
   * ({@code -X…}) and configuration variables ({@code TALLY_…=value}, e.g. the journal's tuning).
   */
  void start(List<String> moreJvm) throws Exception {
    if (startNanos == 0) {
      startNanos = System.nanoTime();
    }
    List<String> options = new ArrayList<>();
    Map<String, String> env = new java.util.HashMap<>();
    for (String o : concat(jvm, moreJvm)) {
      int eq = o.indexOf('=');
      if (o.startsWith("TALLY_") && eq > 0) {
        env.put(o.substring(0, eq), o.substring(eq + 1));
      } else {
        options.add(o);
      }
    }
    long t0 = System.nanoTime();
    process = TallyProcess.serve(dir, config, options, env).awaitListening(START);
    startingNanos += System.nanoTime() - t0;
    starts++;
  }

  /** {@code kill -9}, then waits until the upstream has read whatever the dead process sent. */
  void kill() throws Exception {
    process.kill();
    upstream.awaitNoConnections(Duration.ofSeconds(20));
  }

  McpClient.Exchange send(Call c) throws IOException {
    return client.send(process.mcp(), rpcId(), c.tool(), c.title(), c.key());
  }

  /** Waits until the admin API reports one of the states that hold a result. */
  void awaitResult(String executionId) throws Exception {
    String[] last = {""};
    Poll.until(
        Duration.ofSeconds(30),
        () -> {
          last[0] = state(executionId);
          return HAS_RESULT.contains(last[0]);
        },
        () -> executionId + " is " + last[0]);
  }

  /** Waits until the admin API reports {@code state}. */
  void awaitState(String executionId, String state) throws InterruptedException {
    String[] last = {""};
    Poll.until(
        Duration.ofSeconds(10),
        () -> (last[0] = state(executionId)).equals(state),
        () -> executionId + " is " + last[0] + ", expected " + state);
  }

  String state(String executionId) {
    try {
      McpClient.Answer a = client.get(process.admin("/v1/executions/" + executionId));
      return a.status() == 200 ? a.message().path("state").asText() : "HTTP " + a.status();
    } catch (IOException e) {
      return e.toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The snapshot the checks need: what the agent got and what the upstream saw by now. */
  Crash crashed(Call c, McpClient.Answer original) {
    return new Crash(c, original, upstream.receipts(c.title()));
  }

  /**
   * Retries {@code crash}'s call on the running process as an agent would and checks the answer
   * against the record of what happened before the kill; returns how it was settled.
   */
  String verify(Crash crash) throws Exception {
    long t0 = System.nanoTime();
    try {
      return verifyNow(crash);
    } finally {
      verifyingNanos += System.nanoTime() - t0;
    }
  }

  private String verifyNow(Crash crash) throws Exception {
    Call c = crash.call();
    List<Receipt> before = upstream.receipts(c.title());
    assertThat(before).as("receipts of %s", c).isEqualTo(crash.seen());
    checkAtMostOnce(c);
    McpClient.Answer original = crash.original();
    if (original != null) {
      assertThat(original.isToolResult()).as("%s: the agent got %s", c, original.body()).isTrue();
      assertThat(before).as("%s answered without reaching the upstream", c).isNotEmpty();
      assertThat(original.ticket()).isEqualTo(upstream.ticketOf(before.get(0).idempotencyKey()));
      assertCompletionAudited(c, before.get(0).idempotencyKey());
      if (c.key() == null) {
        // The agent has its answer; the same call again would be a new action, not a retry.
        return "answered before the kill";
      }
    }
    McpClient.Answer r = client.call(process.mcp(), rpcId(), c.tool(), c.title(), c.key(), ANSWER);
    List<Receipt> after = upstream.receipts(c.title());
    String how = settle(c, before, after, r);
    checkAtMostOnce(c);
    return original != null ? "answered before the kill, " + how : how;
  }

  /**
   * The agent got its answer before the kill, so the activity journal the killed process left holds
   * the execution's {@code completed} entry (audit entries are durable before the transition they
   * record is reported).
   */
  private void assertCompletionAudited(Call c, String executionId) throws IOException {
    Path activity = dir.resolve("journal").resolve("audit").resolve("activity.jsonl");
    String id = "\"execution\":\"" + executionId + "\"";
    boolean found;
    try (java.util.stream.Stream<String> lines = Files.lines(activity)) {
      found =
          lines.anyMatch(
              l ->
                  l.contains(id)
                      && l.contains("\"type\":\"transition\"")
                      && l.contains("\"state\":\"completed\""));
    }
    assertThat(found)
        .as(
            "%s: answered before the kill, but %s has no completed entry in %s",
            c, executionId, activity)
        .isTrue();
  }

  private String settle(Call c, List<Receipt> before, List<Receipt> after, McpClient.Answer r)
      throws InterruptedException {
    assertThat(r.status()).as("%s retry: %s", c, r.body()).isEqualTo(200);
    String first = before.isEmpty() ? null : before.get(0).idempotencyKey();
    if (!r.replay().isMissingNode()) {
      assertThat(first).as("%s replayed but never dispatched: %s", c, r.body()).isNotNull();
      assertThat(r.replay().path("executionId").asText()).isEqualTo(first);
      assertThat(r.ticket()).as(r.body()).isEqualTo(upstream.ticketOf(first));
      assertThat(after).as("a replay sends nothing upstream").isEqualTo(before);
      // A replay leaves the record as it was (completed or completed_not_delivered), so that
      // concurrent and later retries of the same lost call keep matching it.
      assertThat(state(first)).isIn(HAS_RESULT);
      return "replayed";
    }
    if (r.tallyCode().equals("OUTCOME_UNKNOWN")) {
      assertThat(r.result().path("isError").asBoolean()).isTrue();
      assertThat(c.tool())
          .as("keyed tools are re-dispatched: %s", r.body())
          .isEqualTo(CountingUpstream.IRREVERSIBLE);
      assertThat(after).as("an unknown outcome is never re-dispatched").isEqualTo(before);
      String id = r.result().path("structuredContent").path("tally").path("executionId").asText();
      if (first != null) {
        assertThat(id).isEqualTo(first);
      }
      assertThat(state(id)).isEqualTo("outcome_unknown");
      if (first != null) {
        settledByRestart.add(first);
      }
      return first == null ? "outcome_unknown (dispatch durable, never sent)" : "outcome_unknown";
    }
    assertThat(r.isToolResult()).as("%s retry: %s", c, r.body()).isTrue();
    assertThat(after).as("%s retry", c).hasSize(before.size() + 1);
    Receipt sent = after.get(after.size() - 1);
    assertThat(r.ticket()).isEqualTo(upstream.ticketOf(sent.idempotencyKey()));
    awaitState(sent.idempotencyKey(), "delivered");
    if (first != null) {
      assertThat(c.tool()).as("only keyed tools are sent again").isEqualTo(CountingUpstream.KEYED);
      assertThat(sent.idempotencyKey()).as("the same execution id").isEqualTo(first);
      settledByRestart.add(first);
      return "re-dispatched with the same execution id";
    }
    return "dispatched by the retry (never reached the upstream)";
  }

  /** The side effect of one action happens at most once, under one execution id. */
  void checkAtMostOnce(Call c) {
    List<Receipt> r = upstream.receipts(c.title());
    for (Receipt x : r) {
      assertThat(x.executionId())
          .as("_meta executionId = Idempotency-Key")
          .isEqualTo(x.idempotencyKey());
    }
    assertThat(r.stream().map(Receipt::idempotencyKey).distinct().count())
        .as("execution ids sent upstream for %s", c)
        .isLessThanOrEqualTo(1);
    if (c.tool().equals(CountingUpstream.IRREVERSIBLE)) {
      assertThat(r).as("receipts of irreversible %s", c).hasSizeLessThanOrEqualTo(1);
    }
    assertThat(upstream.sideEffects(c.title())).isLessThanOrEqualTo(1);
  }

  void count(String outcome) {
    outcomes.merge(outcome, 1, Integer::sum);
  }

  List<Call> calls() {
    synchronized (calls) {
      return List.copyOf(calls);
    }
  }

  /** Stops the last process ({@code kill -9}), if it still runs. */
  void stop() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.kill();
    }
  }

  /** Execution ids a restart found dispatched and the retry then saw as outcome_unknown. */
  List<String> settledByRestart() {
    return List.copyOf(settledByRestart);
  }

  /** One line for the test log: how often each outcome occurred, process starts, wall time. */
  String summary() {
    return String.format(
        java.util.Locale.ROOT,
        "crash point %s: %d process starts in %.1fs (starting %.1fs, retries %.1fs); %s",
        point,
        starts,
        (System.nanoTime() - startNanos) / 1e9,
        startingNanos / 1e9,
        verifyingNanos / 1e9,
        outcomes);
  }

  @Override
  public void close() {
    if (process != null) {
      process.close();
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
