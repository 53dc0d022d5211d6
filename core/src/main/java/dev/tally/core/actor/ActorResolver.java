package dev.tally.core.actor;

import dev.tally.core.mcp.Headers;

/**
 * Decides who is calling. The result scopes every look-up: actor B never attaches to, replays or
 * learns of actor A's execution. Implementations never return raw credentials.
 */
@FunctionalInterface
public interface ActorResolver {
  /** The actor for a request with these headers; never {@code null}. */
  String resolve(Headers headers);
}
