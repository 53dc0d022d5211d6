package dev.tally.core.actor;

import dev.tally.core.mcp.TallyError;

/**
 * Thrown by an {@link ActorResolver} when a request carries a credential that does not prove an
 * identity (an invalid, expired or foreign JWT, a trusted header sent twice, ...), or none where
 * anonymous callers are refused. The call is refused with {@link
 * TallyError.Code#IDENTITY_UNPROVEN}; it never falls back to {@link ActorResolvers#ANONYMOUS}. The
 * message names the source and the problem, never the credential. Carries no stack trace (an
 * expected rejection).
 */
public final class IdentityRefused extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient TallyError error;

  public IdentityRefused(String message) {
    super(message, null, false, false);
    this.error = TallyError.of(TallyError.Code.IDENTITY_UNPROVEN, message);
  }

  /** The refusal to answer with. */
  public TallyError error() {
    return error;
  }
}
