package dev.tally.core.gate;

import dev.tally.core.actor.ActorResolver;
import dev.tally.core.actor.IdentityRefused;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.mcp.Headers;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Binds what a caller created (an MCP session's streams) to its actor, and checks a later request
 * against it under every key of the ring, so that a key rotation does not lock the owner out. A
 * request whose credential proves nothing owns nothing.
 */
final class Owners {
  private final ActorResolver actors;
  private final KeyRing keys;

  Owners(ActorResolver actors, KeyRing keys) {
    this.actors = actors;
    this.keys = keys;
  }

  /** The actor of {@code headers} under the active key, or {@code null} if it proves nothing. */
  String ownerOf(Headers headers) {
    try {
      return actors.resolve(headers);
    } catch (IdentityRefused e) {
      return null;
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * Whether {@code headers} are from {@code owner}: the same actor under the active key or under an
   * older one (the owner was bound before the rotation). {@code owner} null means unbound.
   */
  boolean sameOwner(String owner, Headers headers) {
    if (owner == null) {
      return true;
    }
    try {
      if (same(owner, actors.resolve(headers))) {
        return true;
      }
      for (HmacKey k : keys.older()) {
        if (same(owner, actors.resolveUnder(headers, k))) {
          return true;
        }
      }
      return false;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static boolean same(String a, String b) {
    return b != null
        && MessageDigest.isEqual(
            a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }
}
