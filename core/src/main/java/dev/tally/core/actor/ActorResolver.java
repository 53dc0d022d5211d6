package dev.tally.core.actor;

import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.mcp.Headers;

/**
 * Decides who is calling. The result scopes every look-up: actor B never attaches to, replays or
 * learns of actor A's execution. Implementations never return raw credentials.
 */
@FunctionalInterface
public interface ActorResolver {
  /** The actor for a request with these headers; never {@code null}. */
  String resolve(Headers headers);

  /**
   * The actor these headers had while {@code key}, an older key of the ring, was the active one, so
   * that a retry across a key rotation still finds its execution. The same as {@link #resolve}
   * unless the actor is derived with the key ({@code token_hash}).
   */
  default String resolveUnder(Headers headers, HmacKey key) {
    return resolve(headers);
  }
}
