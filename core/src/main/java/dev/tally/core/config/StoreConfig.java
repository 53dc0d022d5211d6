package dev.tally.core.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Which execution store to use, as one string: {@code memory}, {@code journal:DIR} or a {@code
 * postgres://} / {@code postgresql://} URL. Only the scheme is validated here; the store module
 * interprets the rest. {@link #toString()} and {@link #redacted()} hide a password in the URL.
 *
 * @param uri the store string as configured
 */
public record StoreConfig(String uri) {
  /** The embedded default: a journal under {@code .tally/} in the working directory. */
  public static final String DEFAULT_URI = "journal:.tally/journal";

  public static final StoreConfig DEFAULT = new StoreConfig(DEFAULT_URI);

  /** File name of a generated HMAC key file ({@link #generatedKeyFile()}). */
  public static final String GENERATED_KEY_FILE_NAME = "hmac.keys";

  private static final Pattern QUERY_SECRET =
      Pattern.compile("(?i)([?&](?:password|sslpassword|secret)=)[^&#]*");

  /** The kinds of store. */
  public enum Kind {
    MEMORY,
    JOURNAL,
    POSTGRES
  }

  public StoreConfig {
    Objects.requireNonNull(uri, "uri");
    String problem = problem(uri);
    if (problem != null) {
      throw new IllegalArgumentException("store: " + redact(uri) + " (expected: " + problem + ")");
    }
  }

  /**
   * What is wrong with {@code uri}, as an expectation for a message, or {@code null} when it is a
   * valid store string.
   */
  static String problem(String uri) {
    if (uri.equals("memory")) {
      return null;
    }
    if (uri.startsWith("journal:")) {
      String dir = uri.substring("journal:".length());
      if (dir.isBlank()) {
        return "journal:DIR with a directory";
      }
      try {
        Path.of(dir);
      } catch (InvalidPathException e) {
        return "journal:DIR with a valid directory path";
      }
      return null;
    }
    if (uri.startsWith("postgres://") || uri.startsWith("postgresql://")) {
      return uri.endsWith("://") ? "a postgres:// URL with a host" : null;
    }
    return "memory, journal:DIR or postgres://HOST/DB";
  }

  public Kind kind() {
    if (uri.equals("memory")) {
      return Kind.MEMORY;
    }
    return uri.startsWith("journal:") ? Kind.JOURNAL : Kind.POSTGRES;
  }

  /** The journal directory; only for {@link Kind#JOURNAL}. */
  public Path journalDir() {
    if (kind() != Kind.JOURNAL) {
      throw new IllegalStateException("store " + redacted() + " is not a journal");
    }
    return Path.of(uri.substring("journal:".length()));
  }

  /**
   * Where {@code tally serve} keeps a generated HMAC key file when none is configured: inside the
   * journal directory, else {@code .tally/hmac.keys} in the working directory.
   */
  public Path generatedKeyFile() {
    Path dir = kind() == Kind.JOURNAL ? journalDir() : Path.of(".tally");
    return dir.resolve(GENERATED_KEY_FILE_NAME);
  }

  /** The store string with any password replaced by {@code <redacted>}. */
  public String redacted() {
    return redact(uri);
  }

  /**
   * Replaces the password of a {@code scheme://user:password@host} URL and secret query parameters.
   * Errs towards hiding too much: everything between the first {@code :} after the user and the
   * last {@code @} is hidden, so an unencoded {@code @} or {@code /} in a password does not leak
   * its tail.
   */
  static String redact(String uri) {
    String s = uri;
    int scheme = s.indexOf("://");
    int at = s.lastIndexOf('@');
    if (scheme >= 0 && at > scheme) {
      int colon = s.indexOf(':', scheme + 3);
      if (colon >= 0 && colon < at) {
        s = s.substring(0, colon + 1) + Problems.REDACTED + s.substring(at);
      }
    }
    return QUERY_SECRET.matcher(s).replaceAll("$1" + Problems.REDACTED);
  }

  @Override
  public String toString() {
    return "StoreConfig[" + redacted() + "]";
  }
}
