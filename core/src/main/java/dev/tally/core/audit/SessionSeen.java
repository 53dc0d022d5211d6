package dev.tally.core.audit;

import java.time.Instant;
import java.util.Objects;

/**
 * One sighting of an agent run or MCP session, reported by an adapter on each request that carries
 * one. The sessions journal records the first sighting and later changes (see {@link
 * AuditOptions#sessionUpdateInterval()}).
 *
 * @param session the run or session
 * @param actor the resolved actor (never a raw credential)
 * @param clientName {@code clientInfo.name} from {@code initialize}, or {@code null} if not seen on
 *     this request
 * @param clientVersion {@code clientInfo.version}, or {@code null}
 * @param protocolVersion the negotiated MCP protocol version, or {@code null}
 * @param at when the request arrived
 */
public record SessionSeen(
    SessionRef session,
    String actor,
    String clientName,
    String clientVersion,
    String protocolVersion,
    Instant at) {
  public SessionSeen {
    Objects.requireNonNull(session, "session");
    Objects.requireNonNull(actor, "actor");
    Objects.requireNonNull(at, "at");
  }

  /** A sighting without client information. */
  public static SessionSeen of(SessionRef session, String actor, Instant at) {
    return new SessionSeen(session, actor, null, null, null, at);
  }
}
