package dev.tally.core.gate;

import dev.tally.core.mcp.Headers;
import java.util.Objects;

/**
 * Whether a resolved actor may use write tools at all, from what its request proves (issue 18). The
 * operator's switch ({@link WriteSwitch}) applies on top. Implementations must be thread-safe and
 * must not log the headers they read.
 *
 * <p>The identity work (verified JWT claims) plugs a claim-based implementation in here.
 */
@FunctionalInterface
public interface WritePermission {
  /** Whether {@code actor}, calling with {@code headers}, holds the right to write. */
  boolean mayWrite(String actor, Headers headers);

  /** Every caller may write (the switch still applies): the default without a scope header. */
  static WritePermission everyone() {
    return (actor, headers) -> true;
  }

  /**
   * A caller may write when {@code header} lists {@code scope} among its space- or comma-separated
   * scopes (like an OAuth {@code scope} claim forwarded by a gateway that verified the token).
   */
  static WritePermission scopeHeader(String header, String scope) {
    Objects.requireNonNull(header, "header");
    Objects.requireNonNull(scope, "scope");
    return (actor, headers) -> {
      String v = headers.get(header);
      if (v == null) {
        return false;
      }
      for (String s : v.split("[\\s,]+")) {
        if (s.equals(scope)) {
          return true;
        }
      }
      return false;
    };
  }
}
