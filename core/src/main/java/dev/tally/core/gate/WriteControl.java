package dev.tally.core.gate;

import dev.tally.core.config.WritesConfig;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.TallyError;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Which tools a caller sees and may call (issue 18): a read-only tool always; a tool marked
 * never-exposed never; any other (a write) only while the caller {@link WritePermission may write}
 * and the operator's {@link WriteSwitch switch} is on for it. The one rule behind the gate's
 * refusal, the adapters' {@code tools/list} filtering and the re-check at confirmation.
 */
public final class WriteControl {
  /** What write control says of one tool for one caller. */
  public enum Verdict {
    /** Listed and callable. */
    ALLOWED,
    /** Never listed, never callable: never-exposed, or the caller has no right to write. */
    HIDDEN,
    /** A write the caller may use, but the switch is off for it: hidden from listing and calls. */
    SWITCHED_OFF
  }

  private final Set<String> neverExposed;
  private final WritePermission permission;
  private final WriteSwitch writeSwitch;

  private WriteControl(
      Set<String> neverExposed, WritePermission permission, WriteSwitch writeSwitch) {
    this.neverExposed = Set.copyOf(neverExposed);
    this.permission = Objects.requireNonNull(permission, "permission");
    this.writeSwitch = Objects.requireNonNull(writeSwitch, "writeSwitch");
  }

  /** Everything allowed: no never-exposed tool, everyone may write, switch on. */
  public static WriteControl open() {
    return new WriteControl(
        Set.of(), WritePermission.everyone(), WriteSwitch.of(true, java.util.Map.of()));
  }

  /** From configuration, with the permission the configured scope header implies. */
  public static WriteControl of(WritesConfig c) {
    WritePermission p =
        c.scopeHeader() == null
            ? WritePermission.everyone()
            : WritePermission.scopeHeader(c.scopeHeader(), c.scope());
    return of(c, p);
  }

  /** From configuration with another {@link WritePermission} (e.g. verified JWT scopes). */
  public static WriteControl of(WritesConfig c, WritePermission permission) {
    return new WriteControl(c.neverExposed(), permission, WriteSwitch.of(c.enabled(), c.actors()));
  }

  public WriteSwitch writeSwitch() {
    return writeSwitch;
  }

  /** The verdict for {@code actor} (calling with {@code headers}) on a tool under {@code c}. */
  public Verdict verdict(ToolContract c, String actor, Headers headers) {
    if (neverExposed.contains(c.tool())) {
      return Verdict.HIDDEN;
    }
    if (c.isReadOnly()) {
      return Verdict.ALLOWED;
    }
    if (!permission.mayWrite(actor, headers)) {
      return Verdict.HIDDEN;
    }
    return writeSwitch.on(actor) ? Verdict.ALLOWED : Verdict.SWITCHED_OFF;
  }

  /**
   * Whether nothing is hidden from {@code actor} (calling with {@code headers}): no tool is never
   * exposed, it may write and its switch is on. Then a listing needs no filtering at all.
   */
  public boolean hidesNothing(String actor, Headers headers) {
    return neverExposed.isEmpty() && permission.mayWrite(actor, headers) && writeSwitch.on(actor);
  }

  /** Whether {@code tool} is never exposed, whoever asks. */
  public boolean neverExposed(String tool) {
    return neverExposed.contains(tool);
  }

  /**
   * The refusal of a call the caller may not make, answered exactly as an unknown tool; empty when
   * allowed.
   */
  public Optional<TallyError> refusal(ToolContract c, String actor, Headers headers) {
    if (verdict(c, actor, headers) == Verdict.ALLOWED) {
      return Optional.empty();
    }
    return Optional.of(unknownTool(c.tool()));
  }

  /** The MCP specification's unknown-tool error. */
  public static TallyError unknownTool(String tool) {
    return TallyError.of(TallyError.Code.UNKNOWN_TOOL, "Unknown tool: " + tool);
  }
}
