package dev.tally.store.postgres;

import dev.tally.core.config.StoreConfig;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Where the PostgreSQL store connects and as whom, parsed from {@code --store
 * postgres://USER:PASSWORD@HOST:PORT/DB}. The password never appears in {@link #toString()} or in
 * any message this class produces.
 *
 * <p>URL form: {@code postgres[ql]://[USER[:PASSWORD]@]HOST[:PORT][/DB][?PARAMS]}, user, password
 * and database percent-decoded. The password comes from exactly one of: the URL, the {@code
 * password} parameter, {@code password_file=PATH} (the file's content without a trailing line
 * break), {@code password_env=NAME} (an environment variable), or else {@code PGPASSWORD} if set.
 * Other parameters: {@code sslmode} ({@code disable}, {@code prefer}, {@code require}, {@code
 * verify-ca}, {@code verify-full}; default {@code disable}), {@code application_name} (default
 * {@value #DEFAULT_APPLICATION_NAME}) and {@code pool_size} (1..1000 pooled connections, see {@link
 * PostgresStoreOptions#poolSize()}; carried here for {@link PostgresStoreOptions#fromUrl}).
 * Defaults: user {@value #DEFAULT_USER}, port {@value #DEFAULT_PORT}, database the user's name (as
 * libpq does).
 */
public final class PostgresTarget {
  public static final int DEFAULT_PORT = 5432;
  public static final String DEFAULT_USER = "postgres";
  public static final String DEFAULT_APPLICATION_NAME = "tally";
  public static final String PASSWORD_ENV = "PGPASSWORD";

  private static final Set<String> SSL_MODES =
      Set.of("disable", "prefer", "require", "verify-ca", "verify-full");
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,39}");

  private final String host;
  private final int port;
  private final String database;
  private final String user;
  private final String password;
  private final String sslMode;
  private final String applicationName;
  private final int poolSize;

  private PostgresTarget(
      String host,
      int port,
      String database,
      String user,
      String password,
      String sslMode,
      String applicationName,
      int poolSize) {
    this.host = Objects.requireNonNull(host, "host");
    this.port = port;
    this.database = Objects.requireNonNull(database, "database");
    this.user = Objects.requireNonNull(user, "user");
    this.password = password;
    this.sslMode = Objects.requireNonNull(sslMode, "sslMode");
    this.applicationName = Objects.requireNonNull(applicationName, "applicationName");
    this.poolSize = poolSize;
    if (host.isEmpty()) {
      throw new IllegalArgumentException("host: empty (expected: a host name or address)");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port: " + port + " (expected: 1..65535)");
    }
    if (database.isEmpty() || user.isEmpty()) {
      throw new IllegalArgumentException("database and user: empty (expected: a name)");
    }
    if (!SSL_MODES.contains(sslMode)) {
      throw new IllegalArgumentException(
          "sslmode: " + sslMode + " (expected: one of " + String.join(", ", SSL_MODES) + ")");
    }
  }

  /**
   * A target given part by part ({@code password} may be null), with {@code sslmode=disable} and
   * the default application name.
   */
  public static PostgresTarget of(
      String host, int port, String database, String user, String password) {
    return new PostgresTarget(
        host, port, database, user, password, "disable", DEFAULT_APPLICATION_NAME, 0);
  }

  /** Host name or IP address (an IPv6 address without brackets). */
  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  public String database() {
    return database;
  }

  public String user() {
    return user;
  }

  /** The password, or null: for opening connections only, never for a message. */
  String password() {
    return password;
  }

  /** One of disable, prefer, require, verify-ca, verify-full. */
  public String sslMode() {
    return sslMode;
  }

  /** Reported to the server as {@code application_name}. */
  public String applicationName() {
    return applicationName;
  }

  /** The URL's {@code pool_size}, or 0 if it has none. */
  int poolSize() {
    return poolSize;
  }

  /** Parses a store URL, reading {@code password_env} and {@code PGPASSWORD} from the process. */
  public static PostgresTarget parse(String url) {
    return parse(url, System::getenv);
  }

  /**
   * Parses a store URL with {@code env} as the environment. Throws {@link IllegalArgumentException}
   * naming the part that is wrong, with the URL shown as {@link StoreConfig#redacted()}.
   */
  public static PostgresTarget parse(String url, UnaryOperator<String> env) {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(env, "env");
    String shown = shown(url);
    String rest;
    if (url.startsWith("postgres://")) {
      rest = url.substring("postgres://".length());
    } else if (url.startsWith("postgresql://")) {
      rest = url.substring("postgresql://".length());
    } else {
      throw bad(shown, "a postgres:// or postgresql:// URL");
    }
    int q = rest.indexOf('?');
    String query = q < 0 ? "" : rest.substring(q + 1);
    String main = q < 0 ? rest : rest.substring(0, q);
    int at = main.lastIndexOf('@');
    String userInfo = at < 0 ? null : main.substring(0, at);
    String hostPath = at < 0 ? main : main.substring(at + 1);
    int slash = hostPath.indexOf('/');
    String hostPort = slash < 0 ? hostPath : hostPath.substring(0, slash);
    String db = slash < 0 ? "" : decode(shown, "database", hostPath.substring(slash + 1));

    String user = DEFAULT_USER;
    String urlPassword = null;
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      user = decode(shown, "user", colon < 0 ? userInfo : userInfo.substring(0, colon));
      if (colon >= 0) {
        urlPassword = decodeSecret(shown, userInfo.substring(colon + 1));
      }
      if (user.isEmpty()) {
        throw bad(shown, "a user name before '@'");
      }
    }

    String host;
    int port = DEFAULT_PORT;
    String portText = null;
    if (hostPort.startsWith("[")) {
      int close = hostPort.indexOf(']');
      if (close < 0) {
        throw bad(shown, "a closing ']' after an IPv6 address");
      }
      host = hostPort.substring(1, close);
      String after = hostPort.substring(close + 1);
      if (!after.isEmpty()) {
        if (!after.startsWith(":")) {
          throw bad(shown, "':PORT' after ']'");
        }
        portText = after.substring(1);
      }
    } else {
      int colon = hostPort.lastIndexOf(':');
      host = colon < 0 ? hostPort : hostPort.substring(0, colon);
      portText = colon < 0 ? null : hostPort.substring(colon + 1);
    }
    if (host.isEmpty()) {
      throw bad(shown, "a host");
    }
    if (portText != null) {
      port = port(shown, portText);
    }

    Map<String, String> params = query(shown, query);
    String sslMode = params.getOrDefault("sslmode", "disable");
    if (!SSL_MODES.contains(sslMode)) {
      throw bad(shown, "sslmode one of " + String.join(", ", SSL_MODES));
    }
    String appName = params.getOrDefault("application_name", DEFAULT_APPLICATION_NAME);
    String password = password(shown, urlPassword, params, env);
    int poolSize = 0;
    if (params.containsKey("pool_size")) {
      String n = params.get("pool_size");
      if (n.isEmpty() || n.length() > 4 || !n.chars().allMatch(Character::isDigit)) {
        throw bad(shown, "pool_size 1..1000");
      }
      poolSize = Integer.parseInt(n);
      if (poolSize < 1 || poolSize > 1000) {
        throw bad(shown, "pool_size 1..1000");
      }
    }
    return new PostgresTarget(
        host, port, db.isEmpty() ? user : db, user, password, sslMode, appName, poolSize);
  }

  private static String password(
      String shown, String urlPassword, Map<String, String> params, UnaryOperator<String> env) {
    int sources =
        (urlPassword != null ? 1 : 0)
            + (params.containsKey("password") ? 1 : 0)
            + (params.containsKey("password_file") ? 1 : 0)
            + (params.containsKey("password_env") ? 1 : 0);
    if (sources > 1) {
      throw bad(
          shown,
          "at most one password source: in the URL, password=, password_file= or password_env=");
    }
    if (urlPassword != null) {
      return urlPassword;
    }
    if (params.containsKey("password")) {
      return params.get("password");
    }
    if (params.containsKey("password_file")) {
      return passwordFile(shown, params.get("password_file"));
    }
    if (params.containsKey("password_env")) {
      String name = params.get("password_env");
      String value = name.isEmpty() ? null : env.apply(name);
      if (value == null || value.isEmpty()) {
        throw bad(shown, "password_env naming a set, non-empty environment variable");
      }
      return value;
    }
    String fallback = env.apply(PASSWORD_ENV);
    return fallback == null || fallback.isEmpty() ? null : fallback;
  }

  private static String passwordFile(String shown, String file) {
    if (file.isEmpty()) {
      throw bad(shown, "password_file naming a file");
    }
    String content;
    try {
      content = Files.readString(Path.of(file), StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          "store: "
              + shown
              + " (expected: password_file naming a readable UTF-8 file; could not read "
              + file
              + ": "
              + e.getClass().getSimpleName()
              + ")");
    }
    if (content.endsWith("\n")) {
      content = content.substring(0, content.length() - 1);
      if (content.endsWith("\r")) {
        content = content.substring(0, content.length() - 1);
      }
    }
    if (content.isEmpty()) {
      throw bad(shown, "password_file naming a non-empty file");
    }
    return content;
  }

  private static Map<String, String> query(String shown, String query) {
    Map<String, String> out = new LinkedHashMap<>();
    if (query.isEmpty()) {
      return out;
    }
    for (String pair : query.split("&", -1)) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      key = key.toLowerCase(Locale.ROOT);
      switch (key) {
        case "password" -> value = decodeSecret(shown, value);
        case "password_file", "password_env", "sslmode", "application_name", "pool_size" ->
            value = decode(shown, key, value);
        default ->
            throw bad(
                shown,
                "parameters among password, password_file, password_env, sslmode,"
                    + " application_name, pool_size; got "
                    + (NAME.matcher(key).matches() ? key : "an unknown parameter"));
      }
      if (out.put(key, value) != null) {
        throw bad(shown, "each parameter once; " + key + " is repeated");
      }
    }
    return out;
  }

  private static int port(String shown, String text) {
    if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(Character::isDigit)) {
      throw bad(shown, "a port number 1..65535");
    }
    int port = Integer.parseInt(text);
    if (port < 1 || port > 65535) {
      throw bad(shown, "a port number 1..65535");
    }
    return port;
  }

  private static String decode(String shown, String part, String s) {
    try {
      return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw bad(shown, "a valid percent-encoded " + part);
    }
  }

  /** Like {@link #decode}, but the message never carries the decoder's text about the value. */
  private static String decodeSecret(String shown, String s) {
    try {
      return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw bad(shown, "a valid percent-encoded password");
    }
  }

  private static String shown(String url) {
    try {
      return new StoreConfig(url).redacted();
    } catch (IllegalArgumentException e) {
      return "<not a store URL>";
    }
  }

  private static IllegalArgumentException bad(String shown, String expected) {
    return new IllegalArgumentException("store: " + shown + " (expected: " + expected + ")");
  }

  /** Whether a password is configured (its value is never exposed otherwise). */
  public boolean hasPassword() {
    return password != null;
  }

  /** {@code postgres://USER@HOST:PORT/DB} with a password marker, never the password. */
  public String describe() {
    String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    return "postgres://"
        + user
        + (password != null ? ":<redacted>" : "")
        + "@"
        + h
        + ":"
        + port
        + "/"
        + database;
  }

  @Override
  public String toString() {
    return "PostgresTarget[" + describe() + ", sslmode=" + sslMode + "]";
  }
}
