package dev.tally.core.gate;

import dev.tally.core.canonical.ArgumentNormalizer;
import dev.tally.core.config.LeaseConfig;
import dev.tally.core.mcp.McpNames;
import java.time.Duration;
import java.util.Objects;

/**
 * Frozen options of a {@link Gate}.
 *
 * @param owner this instance's lease owner id (unique per process)
 * @param lease how long a lease lasts without a heartbeat
 * @param heartbeat how often in-flight leases are renewed (less than {@code lease})
 * @param idempotencyArgument the top-level argument name carrying an idempotency key
 * @param idempotencyHeader the request header carrying an idempotency key
 * @param intentScopeHeader the request header carrying an explicit intent scope (run id)
 * @param credentialRef the credential reference recorded in action records (may be empty)
 */
public record GateOptions(
    String owner,
    Duration lease,
    Duration heartbeat,
    String idempotencyArgument,
    String idempotencyHeader,
    String intentScopeHeader,
    String credentialRef) {

  public static final Duration DEFAULT_LEASE = LeaseConfig.DEFAULT_DURATION;
  public static final Duration DEFAULT_HEARTBEAT = LeaseConfig.DEFAULT_HEARTBEAT;
  public static final String DEFAULT_IDEMPOTENCY_HEADER = McpNames.HeaderNames.IDEMPOTENCY_KEY;
  public static final String DEFAULT_INTENT_SCOPE_HEADER = McpNames.HeaderNames.INTENT_SCOPE;

  public GateOptions {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(heartbeat, "heartbeat");
    if (heartbeat.compareTo(lease) >= 0) {
      throw new IllegalArgumentException(
          "gate.heartbeat: " + heartbeat + " (expected: shorter than gate.lease " + lease + ")");
    }
    Objects.requireNonNull(idempotencyArgument, "idempotencyArgument");
    Objects.requireNonNull(idempotencyHeader, "idempotencyHeader");
    Objects.requireNonNull(intentScopeHeader, "intentScopeHeader");
    credentialRef = credentialRef == null ? "" : credentialRef;
  }

  /** Defaults for an instance called {@code owner}. */
  public static GateOptions defaults(String owner) {
    return new GateOptions(
        owner,
        DEFAULT_LEASE,
        DEFAULT_HEARTBEAT,
        ArgumentNormalizer.DEFAULT_IDEMPOTENCY_ARGUMENT,
        DEFAULT_IDEMPOTENCY_HEADER,
        DEFAULT_INTENT_SCOPE_HEADER,
        "");
  }
}
