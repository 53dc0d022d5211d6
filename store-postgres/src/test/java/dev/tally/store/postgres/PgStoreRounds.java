package dev.tally.store.postgres;

import dev.tally.core.contract.ToolClass;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.execution.Transition;
import io.vertx.core.Vertx;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where PostgreSQL's CPU goes per side-effecting call: starts a durable embedded PostgreSQL with
 * {@code pg_stat_statements}, opens the store and runs synthetic calls at 64 concurrency, each the
 * sidecar's happy path (claim straight into {@code dispatched}, {@code completed} with a small
 * result, {@code delivered} shortening a fingerprint hold). Prints, per call, the CPU of the
 * server's processes (from /proc), WAL bytes and statements, and the top statements.
 *
 * <p>Run (after {@code ./mvnw -pl store-postgres -am test-compile}): {@code java -cp <test
 * classpath> dev.tally.store.postgres.PgStoreRounds [calls] [rounds] [preload rows]}; {@code
 * -Dpgcpu.lanes=N} sets the concurrency, {@code -Dpgcpu.after='SQL;SQL'} runs statements on the
 * store's database once it opened (experiments: dropping an index, a table setting). Findings:
 * bench/README.md, "CPU per call".
 */
public final class PgStoreRounds {
  private static final int CONCURRENCY = Integer.getInteger("pgcpu.lanes", 64);
  private static final long TICKS = 100; // USER_HZ

  private PgStoreRounds() {}

  public static void main(String[] args) throws Exception {
    try {
      measure(args);
    } finally {
      System.exit(0);
    }
  }

  private static void measure(String[] args) throws Exception {
    int calls = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int preload = args.length > 2 ? Integer.parseInt(args[2]) : 0;
    Path dir = Files.createTempDirectory("tally-pgcpu");
    try (EmbeddedPostgres pg =
        EmbeddedPostgres.builder()
            .setDataDirectory(dir)
            .setServerConfig("listen_addresses", "127.0.0.1")
            .setServerConfig("shared_preload_libraries", "pg_stat_statements")
            .setServerConfig("pg_stat_statements.track_planning", "on")
            .setServerConfig("pg_stat_statements.track", "all")
            .setServerConfig("max_connections", "100")
            .setPGStartupWait(Duration.ofSeconds(90))
            .setDataDirectoryCustomizer(
                d -> {
                  try {
                    Files.writeString(
                        d.toPath().resolve("pg_hba.conf"),
                        "local all all trust\nhost all all 127.0.0.1/32 trust\n",
                        StandardCharsets.UTF_8);
                  } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                })
            .start()) {
      int port = pg.getPort();
      admin(port, "postgres", "CREATE DATABASE bench");
      admin(port, "bench", "CREATE EXTENSION pg_stat_statements");
      long postmaster =
          Long.parseLong(Files.readAllLines(dir.resolve("postmaster.pid")).get(0).trim());
      Vertx vertx = Vertx.vertx();
      PostgresStoreOptions options =
          PostgresStoreOptions.defaults(
              PostgresTarget.of("127.0.0.1", port, "bench", "postgres", null));
      PostgresExecutionStore store =
          PostgresExecutionStore.open(vertx, options)
              .toCompletableFuture()
              .get(60, TimeUnit.SECONDS);
      Clock clock = Clock.systemUTC();
      for (String sql : System.getProperty("pgcpu.after", "").split(";")) {
        if (!sql.isBlank()) {
          admin(port, "bench", sql);
        }
      }
      if (preload > 0) {
        run(store, clock, preload);
        admin(port, "bench", "VACUUM ANALYZE");
      }
      run(store, clock, Math.max(500, calls / 4)); // warm-up
      for (int r = 1; r <= rounds; r++) {
        admin(port, "bench", "SELECT pg_stat_statements_reset()");
        String lsn0 = query(port, "SELECT pg_current_wal_lsn()::text");
        Map<String, Long> cpu0 = cpuTicks(postmaster);
        long rt0 = store.stats().roundTrips();
        long t0 = System.nanoTime();
        run(store, clock, calls);
        double secs = (System.nanoTime() - t0) / 1e9;
        Map<String, Long> cpu1 = cpuTicks(postmaster);
        long rt1 = store.stats().roundTrips();
        String wal =
            query(port, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '" + lsn0 + "')::bigint");
        System.out.printf(
            "round %d: %d calls in %.2f s = %.0f calls/s; postgres CPU %.0f us/call;"
                + " WAL %.0f B/call; round trips %.2f/call%n",
            r,
            calls,
            secs,
            calls / secs,
            (cpu1.get("all") - cpu0.get("all")) * 1e6 / TICKS / calls,
            Double.parseDouble(wal) / calls,
            (rt1 - rt0) / (double) calls);
        StringBuilder by = new StringBuilder("  CPU us/call by process:");
        for (var e : cpu1.entrySet()) {
          long d = e.getValue() - cpu0.getOrDefault(e.getKey(), 0L);
          if (d > 0) {
            by.append(String.format(" %s=%.0f", e.getKey(), d * 1e6 / TICKS / calls));
          }
        }
        System.out.println(by);
        top(port, calls);
      }
      Map<String, Long> idle0 = cpuTicks(postmaster);
      Thread.sleep(5_000); // a measurement window, not synchronization
      Map<String, Long> idle1 = cpuTicks(postmaster);
      System.out.printf(
          "idle, store open: postgres CPU %.1f ms/s%n",
          (idle1.get("all") - idle0.get("all")) * 1e3 / TICKS / 5);
      System.out.println(
          query(
              port,
              "SELECT 'executions: ' || n_tup_upd || ' updates, ' || n_tup_hot_upd || ' HOT'"
                  + " FROM pg_stat_user_tables WHERE relname = 'tally_executions'"));
      store.close();
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private static void run(PostgresExecutionStore store, Clock clock, int calls) throws Exception {
    AtomicInteger left = new AtomicInteger(calls);
    CompletableFuture<?>[] lanes = new CompletableFuture<?>[CONCURRENCY];
    for (int i = 0; i < CONCURRENCY; i++) {
      lanes[i] = lane(store, clock, left).toCompletableFuture();
    }
    CompletableFuture.allOf(lanes).get(10, TimeUnit.MINUTES);
  }

  private static CompletionStage<Void> lane(
      PostgresExecutionStore store, Clock clock, AtomicInteger left) {
    if (left.getAndDecrement() <= 0) {
      return CompletableFuture.completedFuture(null);
    }
    return call(store, clock).thenCompose(v -> lane(store, clock, left));
  }

  private static CompletionStage<Void> call(PostgresExecutionStore store, Clock clock) {
    Instant now = clock.instant();
    Map<ExecutionState, Instant> tl = new EnumMap<>(ExecutionState.class);
    tl.put(ExecutionState.ACCEPTED, now);
    tl.put(ExecutionState.AUTHORIZED, now);
    tl.put(ExecutionState.DISPATCHED, now);
    Execution candidate =
        new Execution(
            ExecutionId.generate(clock),
            1,
            "fp:" + UUID.randomUUID(),
            MatchKind.FINGERPRINT,
            "actor:alice",
            "create_ticket",
            ToolClass.IRREVERSIBLE,
            "hmac-sha256:k1:" + "ab".repeat(32),
            Execution.WINDOW_SCOPE,
            ExecutionState.DISPATCHED,
            tl,
            now.plus(Duration.ofMinutes(2)),
            now.plus(Duration.ofHours(24)),
            new Lease("replica-a", now.plusSeconds(30)),
            null,
            null,
            null,
            false,
            "{title:string}");
    byte[] result =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}}"
            .getBytes(StandardCharsets.UTF_8);
    return store
        .claim(candidate, now)
        .thenCompose(
            claim ->
                store.transition(
                    Transition.to(claim.execution(), ExecutionState.COMPLETED, clock.instant())
                        .clearingLease()
                        .withOutcome(200, null)
                        .withResult(result, false)
                        .withRetainUntil(clock.instant().plus(Duration.ofHours(24)))))
        .thenCompose(
            done -> {
              Instant at = clock.instant();
              return store.transition(
                  Transition.to(done, ExecutionState.DELIVERED, at)
                      .withHoldUntil(at.plusSeconds(10)));
            })
        .thenApply(e -> null);
  }

  /** utime + stime of the postmaster and its children, in clock ticks. */
  private static Map<String, Long> cpuTicks(long postmaster) throws java.io.IOException {
    Map<String, Long> sum = new java.util.TreeMap<>();
    try (var procs = Files.list(Path.of("/proc"))) {
      for (Path p : (Iterable<Path>) procs::iterator) {
        String name = p.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        String stat;
        try {
          stat = Files.readString(p.resolve("stat"));
        } catch (java.io.IOException gone) {
          continue;
        }
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long pid = Long.parseLong(name);
        long ppid = Long.parseLong(f[1]);
        if (pid == postmaster || ppid == postmaster) {
          long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
          sum.merge("user", Long.parseLong(f[11]), Long::sum);
          sum.merge("system", Long.parseLong(f[12]), Long::sum);
          String cmd;
          try {
            cmd = Files.readString(p.resolve("cmdline")).replace('\0', ' ').trim();
          } catch (java.io.IOException gone) {
            continue;
          }
          String kind =
              pid == postmaster
                  ? "postmaster"
                  : cmd.contains(" bench ") ? "backends" : cmd.replace("postgres: ", "");
          sum.merge(kind, ticks, Long::sum);
          sum.merge("all", ticks, Long::sum);
          // (user and system are the same processes' CPU split by mode)
        }
      }
    }
    return sum;
  }

  private static void top(int port, int calls) throws SQLException {
    try (Connection c = connect(port, "bench");
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT calls, round(total_exec_time::numeric, 1),"
                    + " round((total_exec_time / greatest(calls, 1) * 1000)::numeric, 0),"
                    + " round((total_plan_time / greatest(plans, 1) * 1000)::numeric, 0), plans,"
                    + " wal_bytes, wal_fpi,"
                    + " left(regexp_replace(query, '\\s+', ' ', 'g'), 70)"
                    + " FROM pg_stat_statements WHERE calls > 0 ORDER BY total_exec_time + total_plan_time DESC"
                    + " LIMIT 8")) {
      System.out.println("  calls  total_ms  exec_us  plan_us  plans  wal_B/call  fpi  query");
      while (rs.next()) {
        System.out.printf(
            "  %5d %9s %8s %8s %6d %11.0f %4d  %s%n",
            rs.getLong(1),
            rs.getString(2),
            rs.getString(3),
            rs.getString(4),
            rs.getLong(5),
            rs.getDouble(6) / Math.max(1, rs.getLong(1)),
            rs.getLong(7),
            rs.getString(8));
      }
    }
  }

  private static Connection connect(int port, String db) throws SQLException {
    return DriverManager.getConnection(
        "jdbc:postgresql://127.0.0.1:" + port + "/" + db + "?user=postgres");
  }

  private static void admin(int port, String db, String sql) throws SQLException {
    try (Connection c = connect(port, db);
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static String query(int port, String sql) throws SQLException {
    try (Connection c = connect(port, "bench");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
