package dev.tally.core.config;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A URL as it may be shown or recorded: in a start log, in error messages and as an audit {@code
 * target} (an append-only chain: whatever enters it stays forever). No userinfo, no fragment, and
 * the value of every query parameter whose name looks like a credential replaced by {@value
 * #REDACTED}. Errs towards hiding: a name that cannot be decoded counts as a secret.
 *
 * <p>A query parameter counts as a credential when its name, lower-cased and without {@code -},
 * {@code _} and {@code .}, is one of {@code key}, {@code sig}, {@code code}, {@code auth}, {@code
 * pass}, {@code pwd}, {@code sid}, {@code jwt}, ends in {@code key}, or contains {@code token},
 * {@code secret}, {@code passw}, {@code signature}, {@code credential}, {@code session}, {@code
 * private} or {@code bearer} ({@code access_token}, {@code api_key}, {@code X-Amz-Signature},
 * {@code sessionId}, {@code subscription-key} all do).
 */
public final class UrlRedaction {
  /** What replaces a hidden value. */
  public static final String REDACTED = Problems.REDACTED;

  private static final Set<String> EXACT =
      Set.of("key", "sig", "code", "auth", "pass", "pwd", "sid", "jwt");
  private static final String[] CONTAINED = {
    "token", "secret", "passw", "signature", "credential", "session", "private", "bearer"
  };

  /** {@code name=value} pairs of a raw query (separators {@code &} and {@code ;}). */
  private static final Pattern PARAM = Pattern.compile("([^&;=]*)(=[^&;]*)?");

  private static final int MAX_SHOWN = 200;

  private UrlRedaction() {}

  /**
   * {@code scheme://host[:port]path[?query]} of {@code upstream} with credential-looking query
   * values redacted; never its userinfo or fragment.
   */
  public static String of(URI upstream) {
    StringBuilder b = new StringBuilder(64);
    b.append(upstream.getScheme()).append("://");
    String host = upstream.getHost();
    b.append(host == null ? "" : host);
    if (upstream.getPort() >= 0) {
      b.append(':').append(upstream.getPort());
    }
    String path = upstream.getRawPath();
    b.append(path == null ? "" : path);
    String query = upstream.getRawQuery();
    if (query != null) {
      b.append('?').append(redactQuery(query));
    }
    return b.toString();
  }

  /**
   * {@code target}, an identity that may be a URL (the sidecar's upstream) or a plain name (the
   * filter's application): a plain name (no {@code ://}) as it is, a URL that parses with a host as
   * {@link #of(URI)}, anything else as {@link #ofText(String)}. What an audit entry's {@code
   * target} holds.
   */
  public static String ofTarget(String target) {
    if (target == null || !target.contains("://")) {
      return target;
    }
    try {
      URI u = new URI(target.strip());
      if (u.getHost() != null) {
        return of(u);
      }
    } catch (java.net.URISyntaxException e) {
      // shown as text below
    }
    return ofText(target);
  }

  /**
   * {@code text}, a URL that may not even parse, with anything that could be userinfo hidden (from
   * the scheme to the last {@code @}) and credential-looking query values redacted; no fragment;
   * cut to 200 characters, control characters replaced. For error messages about a bad {@code
   * upstream.url}.
   */
  public static String ofText(String text) {
    String s = text.strip();
    int hash = s.indexOf('#');
    if (hash >= 0) {
      s = s.substring(0, hash);
    }
    // An unencoded '/', '?' or '@' in a password moves the parser's idea of where the authority
    // ends: everything from the scheme to the last '@' is hidden, wherever that '@' is.
    int scheme = s.indexOf("://");
    int at = s.lastIndexOf('@');
    if (at >= 0 && scheme >= 0 && at > scheme) {
      s = s.substring(0, scheme + 3) + REDACTED + s.substring(at);
    } else if (at >= 0) {
      s = REDACTED; // no scheme to tell userinfo from anything else
    }
    int q = s.indexOf('?');
    if (q >= 0) {
      s = s.substring(0, q + 1) + redactQuery(s.substring(q + 1));
    }
    s = s.replaceAll("[^\\x20-\\x7e]", "?");
    return s.length() > MAX_SHOWN ? s.substring(0, MAX_SHOWN) + "…" : s;
  }

  /**
   * Whether {@code url} carries userinfo ({@code user[:password]@}), which Tally refuses; also a
   * URL with no host and an {@code @} anywhere (a password with an unencoded {@code /} or {@code
   * ?}).
   */
  public static boolean hasUserInfo(URI url) {
    return url.getRawUserInfo() != null
        || url.getHost() == null && url.toString().indexOf('@') >= 0;
  }

  /** Whether a query parameter named {@code rawName} (as in the URL) looks like a credential. */
  public static boolean isSecretParameter(String rawName) {
    String name;
    try {
      name = URLDecoder.decode(rawName, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return true;
    }
    String n = name.toLowerCase(Locale.ROOT).replaceAll("[-_.\\s]", "");
    if (EXACT.contains(n) || n.endsWith("key")) {
      return true;
    }
    for (String c : CONTAINED) {
      if (n.contains(c)) {
        return true;
      }
    }
    return false;
  }

  private static String redactQuery(String rawQuery) {
    StringBuilder b = new StringBuilder(rawQuery.length());
    Matcher m = PARAM.matcher(rawQuery);
    int at = 0;
    while (at <= rawQuery.length() && m.find(at)) {
      String name = m.group(1);
      String value = m.group(2);
      b.append(name);
      if (value != null) {
        b.append('=').append(isSecretParameter(name) ? REDACTED : value.substring(1));
      }
      at = m.end();
      if (at < rawQuery.length()) {
        b.append(rawQuery.charAt(at)); // the separator
        at++;
      } else {
        break;
      }
    }
    return b.toString();
  }
}
