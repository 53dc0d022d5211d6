package dev.tally.sidecar.admin;

import dev.tally.sidecar.app.HostPort;
import java.util.Objects;

/**
 * Options of the admin endpoint.
 *
 * @param listen where it listens (default {@link #DEFAULT_LISTEN})
 * @param token the bearer token required on {@code /v1/*}; required when {@code listen} is not
 *     loopback, optional otherwise ({@code null} = none)
 */
public record AdminOptions(HostPort listen, String token) {
  public static final HostPort DEFAULT_LISTEN = new HostPort("127.0.0.1", 9090);

  public AdminOptions {
    Objects.requireNonNull(listen, "listen");
  }

  @Override
  public String toString() {
    return "AdminOptions[" + listen + (token == null ? "" : ", token=<redacted>") + "]";
  }
}
