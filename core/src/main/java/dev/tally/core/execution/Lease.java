package dev.tally.core.execution;

import java.time.Instant;
import java.util.Objects;

/**
 * The right of one owner (a sidecar or filter instance) to drive an execution until {@code
 * expiresAt}. An owner that stops heartbeating loses it; a dispatched execution whose lease lapsed
 * becomes {@code outcome_unknown}.
 */
public record Lease(String owner, Instant expiresAt) {
  public Lease {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(expiresAt, "expiresAt");
  }
}
