package dev.tally.core.testing;

import dev.tally.core.contract.ToolClass;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.MatchKind;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/** Test data: candidate executions as the gate would claim them, with overridable fields. */
public final class Executions {
  public static final Duration DEFAULT_HOLD = Duration.ofMinutes(10);
  public static final Duration DEFAULT_RETENTION = Duration.ofHours(24);

  private Executions() {}

  /**
   * A builder for an {@code accepted} candidate at version 1 whose id and timestamps come from
   * {@code clock}, with a fresh unique match key (idempotency-key kind), holding for {@link
   * #DEFAULT_HOLD} and retained for {@link #DEFAULT_RETENTION}.
   */
  public static Builder candidate(InstantSource clock) {
    return new Builder(clock);
  }

  /** A fresh match key no other test uses. */
  public static String uniqueKey() {
    return "test-key:" + UUID.randomUUID();
  }

  /** A fluent builder for {@link Execution}; every setter returns the builder. */
  public static final class Builder {
    private final Instant now;
    private ExecutionId id;
    private String matchKey = uniqueKey();
    private MatchKind matchKind = MatchKind.IDEMPOTENCY_KEY;
    private String actor = "actor:alice";
    private String tool = "create_ticket";
    private ToolClass toolClass = ToolClass.IRREVERSIBLE;
    private String fingerprint = "hmac-sha256:k1:" + "ab".repeat(32);
    private String intentScope = Execution.WINDOW_SCOPE;
    private Instant holdUntil;
    private Instant retainUntil;
    private Lease lease;
    private String summary = "{title:string}";

    private Builder(InstantSource clock) {
      this.now = clock.instant();
      this.id = ExecutionId.generate(clock);
      this.holdUntil = now.plus(DEFAULT_HOLD);
      this.retainUntil = now.plus(DEFAULT_RETENTION);
    }

    public Builder id(ExecutionId value) {
      this.id = Objects.requireNonNull(value);
      return this;
    }

    public Builder matchKey(String value) {
      this.matchKey = value;
      return this;
    }

    public Builder kind(MatchKind value) {
      this.matchKind = value;
      return this;
    }

    public Builder actor(String value) {
      this.actor = value;
      return this;
    }

    public Builder tool(String value) {
      this.tool = value;
      return this;
    }

    public Builder toolClass(ToolClass value) {
      this.toolClass = value;
      return this;
    }

    public Builder fingerprint(String value) {
      this.fingerprint = value;
      return this;
    }

    public Builder intentScope(String value) {
      this.intentScope = value;
      return this;
    }

    public Builder holdFor(Duration value) {
      this.holdUntil = now.plus(value);
      return this;
    }

    public Builder retainFor(Duration value) {
      this.retainUntil = now.plus(value);
      return this;
    }

    public Builder lease(Lease value) {
      this.lease = value;
      return this;
    }

    public Builder summary(String value) {
      this.summary = value;
      return this;
    }

    public Execution build() {
      Map<ExecutionState, Instant> timeline = new EnumMap<>(ExecutionState.class);
      timeline.put(ExecutionState.ACCEPTED, now);
      return new Execution(
          id,
          1,
          matchKey,
          matchKind,
          actor,
          tool,
          toolClass,
          fingerprint,
          intentScope,
          ExecutionState.ACCEPTED,
          timeline,
          holdUntil,
          retainUntil,
          lease,
          null,
          null,
          null,
          false,
          summary);
    }
  }
}
