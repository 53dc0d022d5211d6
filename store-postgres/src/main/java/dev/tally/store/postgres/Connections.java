package dev.tally.store.postgres;

import io.vertx.core.Vertx;
import io.vertx.core.net.ClientSSLOptions;
import io.vertx.core.net.NetClientOptions;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.SslMode;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.util.concurrent.TimeUnit;

/** Builds the client's connection options and the pool from {@link PostgresStoreOptions}. */
final class Connections {
  private Connections() {}

  /**
   * Connection options: prepared statements cached per connection (so a statement is parsed once
   * per connection and then costs one round trip), and the server itself cancels a statement that
   * runs longer than the statement timeout.
   */
  static PgConnectOptions connectOptions(PostgresStoreOptions o) {
    PostgresTarget t = o.target();
    PgConnectOptions c =
        new PgConnectOptions()
            .setHost(t.host())
            .setPort(t.port())
            .setDatabase(t.database())
            .setUser(t.user())
            .setCachePreparedStatements(true)
            .setPreparedStatementCacheMaxSize(64)
            .setPreparedStatementCacheSqlLimit(16 * 1024)
            .setReconnectAttempts(0)
            .setSslMode(sslMode(t.sslMode()));
    if (t.password() != null) {
      c.setPassword(t.password());
    }
    c.addProperty("application_name", t.applicationName());
    c.addProperty(Schema.NOTIFY_SETTING, Schema.NOTIFY_AFTER_COMMIT);
    c.addProperty("statement_timeout", Long.toString(o.statementTimeout().toMillis()));
    c.addProperty(
        "idle_in_transaction_session_timeout",
        Long.toString(Math.max(1000, 4 * o.statementTimeout().toMillis())));
    switch (t.sslMode()) {
      case "prefer", "require" -> c.setSslOptions(new ClientSSLOptions().setTrustAll(true));
      case "verify-ca" ->
          c.setSslOptions(new ClientSSLOptions().setHostnameVerificationAlgorithm(""));
      case "verify-full" ->
          c.setSslOptions(new ClientSSLOptions().setHostnameVerificationAlgorithm("HTTPS"));
      default -> {}
    }
    return c;
  }

  private static SslMode sslMode(String mode) {
    return switch (mode) {
      case "prefer" -> SslMode.PREFER;
      case "require" -> SslMode.REQUIRE;
      case "verify-ca" -> SslMode.VERIFY_CA;
      case "verify-full" -> SslMode.VERIFY_FULL;
      default -> SslMode.DISABLE;
    };
  }

  /**
   * The pool: at most {@code poolSize} connections, a bounded wait for one, TCP keep-alive. It
   * opens connections on demand, so after an outage it reconnects by itself on the next statement.
   */
  static Pool pool(Vertx vertx, PostgresStoreOptions o, PgConnectOptions connect) {
    int timeout = (int) Math.min(Integer.MAX_VALUE, o.connectTimeout().toMillis());
    return PgBuilder.pool()
        .with(
            new PoolOptions()
                .setMaxSize(o.poolSize())
                .setConnectionTimeout(timeout)
                .setConnectionTimeoutUnit(TimeUnit.MILLISECONDS)
                .setIdleTimeout(5)
                .setIdleTimeoutUnit(TimeUnit.MINUTES))
        .with(new NetClientOptions().setConnectTimeout(timeout).setTcpKeepAlive(true))
        .connectingTo(connect)
        .using(vertx)
        .build();
  }
}
