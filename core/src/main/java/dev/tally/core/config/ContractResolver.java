package dev.tally.core.config;

import dev.tally.core.config.ToolsSection.Partial;
import dev.tally.core.contract.DisconnectBehaviour;
import dev.tally.core.contract.FingerprintRules;
import dev.tally.core.contract.StatusArguments;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.contract.UnknownOutcomePolicy;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

/**
 * Turns one partial contract into a {@link ToolContract}: every field the entry does not set comes
 * from the {@code default} entry, else from the built-in default (which for {@code unknownOutcome}
 * and {@code onDisconnect} depends on the class). Then checks that the fields fit together (ARCH
 * §4): {@code redispatch} needs class {@code keyed}; {@code status_check} needs a {@code
 * statusTool}; a {@code read_only} tool passes through, so it cannot require confirmation; results
 * must be kept at least as long as the attach window.
 */
final class ContractResolver {
  private ContractResolver() {}

  /**
   * @param t the entry's section (for messages)
   * @param own what the entry sets
   * @param base what the {@code default} entry sets ({@link Partial#EMPTY} for {@code default})
   * @param baseName the key path of the {@code default} entry, or {@code null} for {@code default}
   *     (which may set a {@code statusTool} it does not use itself, for the tools that inherit it)
   */
  static ToolContract resolve(
      ConfigSection t, String name, Partial own, Partial base, String baseName) {
    ToolClass cls = pick(own.toolClass(), base.toolClass(), ToolClass.IRREVERSIBLE);
    boolean readOnly = cls == ToolClass.READ_ONLY;

    UnknownOutcomePolicy unknown =
        pick(own.unknownOutcome(), base.unknownOutcome(), UnknownOutcomePolicy.defaultFor(cls));
    String unknownShown =
        wire(unknown)
            + (own.unknownOutcome() == null ? inherited(base.unknownOutcome(), baseName) : "");
    if (readOnly) {
      if (own.unknownOutcome() != null && unknown != UnknownOutcomePolicy.REPORT) {
        t.problemShown(
            "unknownOutcome",
            unknownShown,
            "report or nothing: read_only tools pass through and have no unknown outcome");
      }
      unknown = UnknownOutcomePolicy.REPORT;
    } else if (unknown == UnknownOutcomePolicy.REDISPATCH && cls != ToolClass.KEYED) {
      t.problemShown(
          "unknownOutcome",
          unknownShown,
          "report or status_check; redispatch needs class keyed and this tool is " + wire(cls));
    }

    String statusTool = pick(own.statusTool(), base.statusTool(), null);
    if (!readOnly && unknown == UnknownOutcomePolicy.STATUS_CHECK) {
      if (statusTool == null) {
        t.problem(
            "statusTool",
            "missing (expected: the tool that looks up the outcome, required because "
                + (cls == ToolClass.STATUS_CHECK && own.unknownOutcome() == null
                    ? "class is status_check"
                    : "unknownOutcome is status_check")
                + ")");
      } else if (statusTool.equals(name)) {
        t.problemShown("statusTool", Problems.sanitize(statusTool), "a tool other than this one");
      }
    } else if (own.statusTool() != null && baseName != null) {
      t.problemShown(
          "statusTool",
          Problems.sanitize(own.statusTool()),
          "nothing: statusTool is only used with unknownOutcome status_check, this tool has "
              + wire(unknown));
    }
    if (unknown != UnknownOutcomePolicy.STATUS_CHECK) {
      statusTool = null;
    }
    StatusArguments statusArguments = statusArguments(t, own, base, baseName, unknown, readOnly);

    boolean confirm = pick(own.confirmationRequired(), base.confirmationRequired(), false);
    if (readOnly && confirm) {
      if (Boolean.TRUE.equals(own.confirmationRequired())) {
        t.problemShown(
            "confirmationRequired",
            "true",
            "false: read_only tools pass through without a record and cannot wait for one");
      }
      confirm = false;
    }

    Duration window =
        pick(own.attachWindow(), base.attachWindow(), ToolContract.DEFAULT_ATTACH_WINDOW);
    Duration retention =
        pick(own.resultRetention(), base.resultRetention(), ToolContract.DEFAULT_RESULT_RETENTION);
    if (retention.compareTo(window) < 0) {
      t.problemShown(
          "resultRetention",
          ConfigValues.formatDuration(retention)
              + (own.resultRetention() == null ? inherited(base.resultRetention(), baseName) : ""),
          "at least the attachWindow "
              + ConfigValues.formatDuration(window)
              + ", so a retry inside the window can still be replayed");
    }

    Duration replay =
        pick(own.replayWindow(), base.replayWindow(), ToolContract.DEFAULT_REPLAY_WINDOW);
    if (replay.compareTo(window) > 0) {
      t.problemShown(
          "replayWindow",
          ConfigValues.formatDuration(replay)
              + (own.replayWindow() == null ? inherited(base.replayWindow(), baseName) : ""),
          "at most the attachWindow "
              + ConfigValues.formatDuration(window)
              + ": a delivered execution is matched only inside the attach window");
    }

    FingerprintRules rules =
        ToolsSection.rules(
            pick(own.include(), base.include(), null),
            pick(own.exclude(), base.exclude(), null),
            pick(own.defaults(), base.defaults(), null),
            pick(own.secrets(), base.secrets(), null));
    checkRules(t, rules);

    DisconnectBehaviour onDisconnect =
        pick(
            own.onDisconnect(),
            base.onDisconnect(),
            readOnly ? DisconnectBehaviour.CANCEL : DisconnectBehaviour.FINISH);

    return new ToolContract(
        name,
        cls,
        ToolContract.Source.CONFIGURATION,
        rules,
        window,
        pick(own.attachWait(), base.attachWait(), ToolContract.DEFAULT_ATTACH_WAIT),
        retention,
        unknown,
        statusTool,
        confirm,
        onDisconnect,
        replay,
        pick(own.releaseOnError(), base.releaseOnError(), true),
        statusArguments);
  }

  /**
   * What the status tool is called with: only with {@code unknownOutcome: status_check}; the
   * execution id's argument may not also be mapped from the call.
   */
  private static StatusArguments statusArguments(
      ConfigSection t,
      Partial own,
      Partial base,
      String baseName,
      UnknownOutcomePolicy unknown,
      boolean readOnly) {
    java.util.Map<String, String> mapped =
        pick(own.statusArguments(), base.statusArguments(), java.util.Map.of());
    String idName =
        pick(
            own.statusExecutionIdArgument(),
            base.statusExecutionIdArgument(),
            StatusArguments.DEFAULT_EXECUTION_ID_NAME);
    if (readOnly || unknown != UnknownOutcomePolicy.STATUS_CHECK) {
      for (String key : new String[] {"statusArguments", "statusExecutionIdArgument"}) {
        boolean set =
            key.equals("statusArguments")
                ? own.statusArguments() != null
                : own.statusExecutionIdArgument() != null;
        if (set && baseName != null) {
          t.problem(
              key,
              "set (expected: nothing: "
                  + key
                  + " is only used with unknownOutcome status_check, this tool has "
                  + wire(unknown)
                  + ")");
        }
      }
      return StatusArguments.DEFAULT;
    }
    if (mapped.containsKey(idName)) {
      t.problemShown(
          "statusArguments",
          Problems.sanitize(idName),
          "an argument other than statusExecutionIdArgument " + Problems.sanitize(idName));
      return StatusArguments.DEFAULT;
    }
    return new StatusArguments(idName, mapped);
  }

  /** A pointer may appear in at most one of include/exclude, exclude/secrets, exclude/defaults. */
  private static void checkRules(ConfigSection t, FingerprintRules r) {
    Set<String> excluded = new HashSet<>(r.exclude());
    conflict(t, excluded, r.include(), "include");
    conflict(t, excluded, r.secrets(), "secrets");
    conflict(t, excluded, r.defaults().keySet(), "defaults");
  }

  private static void conflict(
      ConfigSection t, Set<String> excluded, Iterable<String> other, String otherKey) {
    for (String p : other) {
      if (excluded.contains(p)) {
        t.problem(
            "fingerprint",
            Problems.sanitize(p)
                + " is in both exclude and "
                + otherKey
                + " (expected: a pointer in one of them)");
      }
    }
  }

  private static <T> T pick(T own, T base, T builtIn) {
    return own != null ? own : base != null ? base : builtIn;
  }

  private static String inherited(Object baseValue, String baseName) {
    return baseValue != null && baseName != null ? " (inherited from " + baseName + ")" : "";
  }

  private static String wire(Enum<?> e) {
    return ConfigSection.wireName(e);
  }
}
