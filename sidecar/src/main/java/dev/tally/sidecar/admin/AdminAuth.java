package dev.tally.sidecar.admin;

import dev.tally.core.console.AdminToken;
import io.vertx.core.http.HttpServerRequest;

/**
 * Who may read or change executions on the admin port: the one place that judges a request's
 * credentials, answering with a {@link Decision} value.
 *
 * <ul>
 *   <li>With a token configured, every request must carry {@code Authorization: Bearer <token>}
 *       (compared in constant time, over SHA-256 digests so that not even the length leaks).
 *   <li>Without one (a loopback-only admin port), reads are open and <b>changes are refused</b>:
 *       confirming, cancelling or resolving needs the token, so that no page a browser opens can
 *       act through the port.
 * </ul>
 *
 * <p>Seam: the planned operator console authenticates with a same-origin session instead (a cookie
 * plus an anti-CSRF token). It adds a {@link Principal} and one branch in {@link #decide} that
 * checks the session before the bearer token; callers need not change, they act on the decision
 * only.
 */
final class AdminAuth {
  /** What a request wants to do. */
  enum Access {
    /** {@code GET}/{@code HEAD}: look at executions. */
    READ,
    /** Anything else: confirm, cancel, resolve (and any other method). */
    CHANGE
  }

  /** On whose authority a request goes ahead. */
  enum Principal {
    /** No token is configured: reads only. */
    OPEN,
    /** The admin bearer token. */
    TOKEN
  }

  /** The verdict on one request. */
  sealed interface Decision permits Granted, Refused {}

  /** Go ahead. */
  record Granted(Principal principal) implements Decision {}

  /**
   * Refuse with {@code status}, {@code code} and {@code message}; {@code challenge}: answer with
   * {@code WWW-Authenticate: Bearer}.
   */
  record Refused(int status, String code, String message, boolean challenge) implements Decision {}

  private static final Refused NO_TOKEN =
      new Refused(401, "UNAUTHORIZED", "a bearer token is required for /v1", true);
  private static final Refused NOT_CONFIGURED =
      new Refused(
          403,
          "TOKEN_NOT_CONFIGURED",
          "state changes need the admin token, and this sidecar has none: set admin.tokenFile or"
              + " TALLY_ADMIN_TOKEN (at least "
              + AdminOptions.MIN_TOKEN_CHARS
              + " characters) and send it as a bearer token",
          false);

  private final AdminToken token;

  private AdminAuth(AdminToken token) {
    this.token = token;
  }

  /** Decisions for the admin port of {@code options}. */
  static AdminAuth of(AdminOptions options) {
    return new AdminAuth(options.token() == null ? null : AdminToken.of(options.token()));
  }

  /** The access {@code req}'s method asks for. */
  static Access accessOf(HttpServerRequest req) {
    return switch (req.method().name()) {
      case "GET", "HEAD" -> Access.READ;
      default -> Access.CHANGE;
    };
  }

  /** Whether {@code req} may have {@code access}. Never reveals the token or its length. */
  Decision decide(HttpServerRequest req, Access access) {
    if (token == null) {
      return access == Access.READ ? new Granted(Principal.OPEN) : NOT_CONFIGURED;
    }
    return token.matches(req.getHeader("Authorization")) ? new Granted(Principal.TOKEN) : NO_TOKEN;
  }

  @Override
  public String toString() {
    return "AdminAuth[" + (token == null ? "no token" : "token") + "]";
  }
}
