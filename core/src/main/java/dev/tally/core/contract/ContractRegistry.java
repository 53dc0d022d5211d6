package dev.tally.core.contract;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolves the contract of a tool in precedence order: explicit configuration, then the tool's MCP
 * annotations learned from {@code tools/list}, then the configured {@code default} entry.
 * Thread-safe; configuration is frozen, learned annotations are replaced as {@code tools/list}
 * answers arrive.
 */
public final class ContractRegistry {
  private final Map<String, ToolContract> configured;
  private final ToolContract defaults;
  private final Map<String, ToolContract> learned = new ConcurrentHashMap<>();

  private ContractRegistry(Map<String, ToolContract> configured, ToolContract defaults) {
    this.configured = Map.copyOf(configured);
    this.defaults = defaults;
  }

  /**
   * A registry of {@code configured} contracts with {@code defaults} (the {@code default} entry,
   * source {@link ToolContract.Source#DEFAULT} unless configured) for everything else.
   */
  public static ContractRegistry of(Map<String, ToolContract> configured, ToolContract defaults) {
    Objects.requireNonNull(defaults, "defaults");
    return new ContractRegistry(configured, defaults);
  }

  /** A registry with no configuration: every tool is {@code irreversible} unless annotated. */
  public static ContractRegistry defaults() {
    return of(Map.of(), ToolContract.defaultFor("default"));
  }

  /** The contract for {@code tool}. */
  public ToolContract resolve(String tool) {
    ToolContract c = configured.get(tool);
    if (c != null) {
      return c;
    }
    c = learned.get(tool);
    if (c != null) {
      return c;
    }
    return defaults.forTool(tool, defaults.source());
  }

  /**
   * Records a tool's MCP annotations as seen in {@code tools/list}: {@code readOnlyHint: true} →
   * {@code read_only}; {@code idempotentHint: true} → {@code keyed}; otherwise the annotations say
   * nothing and the default applies. Configuration always wins over what is learned here.
   */
  public void learnAnnotations(String tool, Boolean readOnlyHint, Boolean idempotentHint) {
    ToolClass c = null;
    if (Boolean.TRUE.equals(readOnlyHint)) {
      c = ToolClass.READ_ONLY;
    } else if (Boolean.TRUE.equals(idempotentHint)) {
      c = ToolClass.KEYED;
    }
    if (c == null) {
      learned.remove(tool);
      return;
    }
    ToolContract base = defaults;
    learned.put(
        tool,
        new ToolContract(
            tool,
            c,
            ToolContract.Source.ANNOTATIONS,
            base.fingerprint(),
            base.attachWindow(),
            base.attachWait(),
            base.resultRetention(),
            UnknownOutcomePolicy.defaultFor(c),
            null,
            c != ToolClass.READ_ONLY && base.confirmationRequired(),
            c == ToolClass.READ_ONLY ? DisconnectBehaviour.CANCEL : base.onDisconnect(),
            base.replayWindow(),
            base.releaseOnError()));
  }

  /** The explicitly configured contracts (without learned ones). */
  public Map<String, ToolContract> configured() {
    return configured;
  }

  public ToolContract defaultContract() {
    return defaults;
  }
}
