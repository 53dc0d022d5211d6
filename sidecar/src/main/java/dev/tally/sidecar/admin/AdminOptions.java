package dev.tally.sidecar.admin;

import dev.tally.sidecar.app.HostPort;
import java.util.List;
import java.util.Objects;

/**
 * Options of the admin endpoint.
 *
 * @param listen where it listens (default {@link #DEFAULT_LISTEN})
 * @param token the bearer token required on {@code /v1/*} (at least {@value #MIN_TOKEN_CHARS}
 *     characters); required when {@code listen} is not loopback, optional otherwise ({@code null} =
 *     none, and then the admin port changes nothing)
 * @param allowedHosts {@code Host} names accepted besides loopback ones ({@code
 *     sidecar.allowedHosts}: the MCP port's list; see {@link
 *     dev.tally.sidecar.internal.http.Hosts})
 */
public record AdminOptions(HostPort listen, String token, List<String> allowedHosts) {
  public static final HostPort DEFAULT_LISTEN = new HostPort("127.0.0.1", 9090);

  /**
   * The shortest admin token accepted: 32 characters (128 bits as hex), so that the token cannot be
   * guessed over the port.
   */
  public static final int MIN_TOKEN_CHARS = dev.tally.core.console.AdminToken.MIN_CHARS;

  public AdminOptions {
    Objects.requireNonNull(listen, "listen");
    if (token != null && token.length() < MIN_TOKEN_CHARS) {
      throw new IllegalArgumentException(
          "admin.tokenFile: the token is "
              + token.length()
              + " characters (expected: at least "
              + MIN_TOKEN_CHARS
              + ")");
    }
    allowedHosts = List.copyOf(allowedHosts == null ? List.of() : allowedHosts);
  }

  /** Options without extra allowed hosts. */
  public AdminOptions(HostPort listen, String token) {
    this(listen, token, List.of());
  }

  @Override
  public String toString() {
    return "AdminOptions[" + listen + (token == null ? "" : ", token=<redacted>") + "]";
  }
}
