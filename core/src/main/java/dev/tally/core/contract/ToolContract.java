package dev.tally.core.contract;

import java.time.Duration;
import java.util.Objects;

/**
 * Everything Tally needs to know about one tool (ARCHITECTURE.md §4). Immutable.
 *
 * @param tool the tool name, or {@code default}
 * @param toolClass the class
 * @param source where the contract came from
 * @param fingerprint normalization rules
 * @param attachWindow how long an unfinished execution may be attached to by fingerprint
 * @param attachWait how long one retry waits on a running execution before it is told in progress
 * @param resultRetention how long a result (and an idempotency key) is kept
 * @param unknownOutcome what a retry after an unknown outcome gets
 * @param statusTool the tool to call for {@link UnknownOutcomePolicy#STATUS_CHECK}, or {@code null}
 * @param confirmationRequired a human must confirm before dispatch
 * @param onDisconnect what a client disconnect means for an in-flight call
 * @param replayWindow how long after delivery an identical call without an idempotency key still
 *     gets the delivered result replayed instead of starting a new execution (zero: never)
 * @param releaseOnError whether a first attempt that failed (a result with {@code isError: true},
 *     or a JSON-RPC error) releases its idempotency key and fingerprint, so that the retry runs the
 *     tool again (the default); {@code false} keeps the failure and replays it, for tools whose
 *     errors may come after a side effect
 * @param statusArguments what {@code statusTool} is called with ({@link StatusArguments#DEFAULT}:
 *     the execution id only)
 */
public record ToolContract(
    String tool,
    ToolClass toolClass,
    Source source,
    FingerprintRules fingerprint,
    Duration attachWindow,
    Duration attachWait,
    Duration resultRetention,
    UnknownOutcomePolicy unknownOutcome,
    String statusTool,
    boolean confirmationRequired,
    DisconnectBehaviour onDisconnect,
    Duration replayWindow,
    boolean releaseOnError,
    StatusArguments statusArguments) {

  public static final Duration DEFAULT_ATTACH_WINDOW = Duration.ofMinutes(10);
  public static final Duration DEFAULT_ATTACH_WAIT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_RESULT_RETENTION = Duration.ofHours(24);

  /**
   * Long enough for the copies of one retry storm (calls sent together, read one after another) to
   * find the first copy's result; short enough that a deliberate repeat seconds later runs anew.
   */
  public static final Duration DEFAULT_REPLAY_WINDOW = Duration.ofSeconds(2);

  /** Where a contract came from, in precedence order. */
  public enum Source {
    CONFIGURATION,
    ANNOTATIONS,
    DEFAULT
  }

  public ToolContract {
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(toolClass, "toolClass");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(attachWindow, "attachWindow");
    Objects.requireNonNull(attachWait, "attachWait");
    Objects.requireNonNull(resultRetention, "resultRetention");
    Objects.requireNonNull(unknownOutcome, "unknownOutcome");
    Objects.requireNonNull(onDisconnect, "onDisconnect");
    Objects.requireNonNull(replayWindow, "replayWindow");
    Objects.requireNonNull(statusArguments, "statusArguments");
    if (replayWindow.isNegative()) {
      throw new IllegalArgumentException("replayWindow must not be negative");
    }
  }

  /** A contract whose status tool gets the execution id only ({@link StatusArguments#DEFAULT}). */
  public ToolContract(
      String tool,
      ToolClass toolClass,
      Source source,
      FingerprintRules fingerprint,
      Duration attachWindow,
      Duration attachWait,
      Duration resultRetention,
      UnknownOutcomePolicy unknownOutcome,
      String statusTool,
      boolean confirmationRequired,
      DisconnectBehaviour onDisconnect,
      Duration replayWindow,
      boolean releaseOnError) {
    this(
        tool,
        toolClass,
        source,
        fingerprint,
        attachWindow,
        attachWait,
        resultRetention,
        unknownOutcome,
        statusTool,
        confirmationRequired,
        onDisconnect,
        replayWindow,
        releaseOnError,
        StatusArguments.DEFAULT);
  }

  /** A contract with the default {@link #DEFAULT_REPLAY_WINDOW replay window}. */
  public ToolContract(
      String tool,
      ToolClass toolClass,
      Source source,
      FingerprintRules fingerprint,
      Duration attachWindow,
      Duration attachWait,
      Duration resultRetention,
      UnknownOutcomePolicy unknownOutcome,
      String statusTool,
      boolean confirmationRequired,
      DisconnectBehaviour onDisconnect) {
    this(
        tool,
        toolClass,
        source,
        fingerprint,
        attachWindow,
        attachWait,
        resultRetention,
        unknownOutcome,
        statusTool,
        confirmationRequired,
        onDisconnect,
        DEFAULT_REPLAY_WINDOW,
        true);
  }

  /** The safe default: irreversible, reported after an unknown outcome, finished on disconnect. */
  public static ToolContract defaultFor(String tool) {
    return of(tool, ToolClass.IRREVERSIBLE, Source.DEFAULT);
  }

  /** A contract of {@code toolClass} with every other field at its documented default. */
  public static ToolContract of(String tool, ToolClass toolClass, Source source) {
    return new ToolContract(
        tool,
        toolClass,
        source,
        FingerprintRules.NONE,
        DEFAULT_ATTACH_WINDOW,
        DEFAULT_ATTACH_WAIT,
        DEFAULT_RESULT_RETENTION,
        UnknownOutcomePolicy.defaultFor(toolClass),
        null,
        false,
        toolClass == ToolClass.READ_ONLY ? DisconnectBehaviour.CANCEL : DisconnectBehaviour.FINISH);
  }

  /** This contract under another tool name and source (a default applied to a named tool). */
  public ToolContract forTool(String name, Source src) {
    return new ToolContract(
        name,
        toolClass,
        src,
        fingerprint,
        attachWindow,
        attachWait,
        resultRetention,
        unknownOutcome,
        statusTool,
        confirmationRequired,
        onDisconnect,
        replayWindow,
        releaseOnError,
        statusArguments);
  }

  /** This contract with another replay window. */
  public ToolContract withReplayWindow(Duration window) {
    return new ToolContract(
        tool,
        toolClass,
        source,
        fingerprint,
        attachWindow,
        attachWait,
        resultRetention,
        unknownOutcome,
        statusTool,
        confirmationRequired,
        onDisconnect,
        window,
        releaseOnError,
        statusArguments);
  }

  /** This contract with failed first attempts releasing their key ({@code release}) or not. */
  public ToolContract withReleaseOnError(boolean release) {
    return new ToolContract(
        tool,
        toolClass,
        source,
        fingerprint,
        attachWindow,
        attachWait,
        resultRetention,
        unknownOutcome,
        statusTool,
        confirmationRequired,
        onDisconnect,
        replayWindow,
        release,
        statusArguments);
  }

  public boolean isReadOnly() {
    return toolClass == ToolClass.READ_ONLY;
  }

  /**
   * A stable digest of what this contract decides about a call ({@code sha256:<16 hex>}): class,
   * fingerprint rules, windows, unknown-outcome policy, status tool, confirmation, disconnect and
   * error behaviour, but not {@link #source()} or the name. Equal contracts give equal digests in
   * every process (collections are rendered in sorted or list order), so a pending confirmation can
   * tell at confirm time whether its contract changed (issue 18).
   */
  public String digest() {
    StringBuilder b = new StringBuilder("tool-contract/1");
    b.append('|').append(toolClass.name());
    b.append('|').append(attachWindow).append('|').append(attachWait);
    b.append('|').append(resultRetention).append('|').append(replayWindow);
    b.append('|').append(unknownOutcome.name()).append('|').append(statusTool);
    b.append('|').append(confirmationRequired).append('|').append(onDisconnect.name());
    b.append('|').append(releaseOnError);
    b.append('|').append(fingerprint.include()).append('|').append(fingerprint.exclude());
    b.append('|').append(new java.util.TreeMap<>(fingerprint.defaults()));
    b.append('|').append(fingerprint.secrets());
    b.append('|').append(statusArguments.executionIdName()).append('|');
    b.append(statusArguments.fromCall());
    try {
      byte[] h =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(b.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return "sha256:" + java.util.HexFormat.of().formatHex(h, 0, 8);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }
}
