package dev.tally.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.contract.DisconnectBehaviour;
import dev.tally.core.contract.FingerprintRules;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.contract.UnknownOutcomePolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads the {@code tools:} section: one partial contract per entry, each named tool resolved field
 * by field against the {@code default} entry, then against {@link ToolContract}'s documented
 * defaults. Lists and maps replace, they never merge.
 */
final class ToolsSection {
  static final List<String> CONTRACT_KEYS =
      List.of(
          "class",
          "fingerprint",
          "attachWindow",
          "attachWait",
          "resultRetention",
          "unknownOutcome",
          "statusTool",
          "statusArguments",
          "statusExecutionIdArgument",
          "confirmationRequired",
          "onDisconnect",
          "replayWindow",
          "releaseOnError");
  static final List<String> FINGERPRINT_KEYS = List.of("include", "exclude", "defaults", "secrets");

  static final Duration MAX_WINDOW = Duration.ofDays(3650);
  static final Duration MAX_ATTACH_WAIT = Duration.ofHours(1);
  private static final Duration POSITIVE = Duration.ofMillis(1);
  private static final Pattern POINTER = Pattern.compile("(/([^~/]|~[01])*)+");
  private static final Pattern TOOL_NAME = Pattern.compile("[^\\p{Cntrl}]{1,128}");
  private static final Pattern ARGUMENT_NAME = Pattern.compile("[^\\p{Cntrl}]{1,128}");
  private static final String POINTER_EXPECTED = "an RFC 6901 JSON pointer like /title or /a/0";

  private ToolsSection() {}

  static ToolsConfig read(ConfigSection tools) {
    Map<String, ConfigSection> sections = new LinkedHashMap<>();
    Map<String, Partial> partials = new LinkedHashMap<>();
    for (String name : tools.keys()) {
      if (!TOOL_NAME.matcher(name).matches() || name.isBlank()) {
        tools.problemShown(name, Problems.sanitize(name), "a tool name of 1-128 characters");
        continue;
      }
      ConfigSection t = tools.section(name);
      sections.put(name, t);
      partials.put(name, partial(t));
    }
    String dfltName = ToolsConfig.DEFAULT_ENTRY;
    Partial dflt = partials.remove(dfltName);
    ToolContract defaults =
        dflt == null
            ? ToolsConfig.DEFAULT.defaults()
            : ContractResolver.resolve(sections.get(dfltName), dfltName, dflt, Partial.EMPTY, null);
    Partial base = dflt == null ? Partial.EMPTY : dflt;
    String inheritedFrom = tools.path(dfltName);
    Map<String, ToolContract> contracts = new LinkedHashMap<>();
    partials.forEach(
        (name, p) ->
            contracts.put(
                name, ContractResolver.resolve(sections.get(name), name, p, base, inheritedFrom)));
    return new ToolsConfig(defaults, contracts);
  }

  private static Partial partial(ConfigSection t) {
    t.allowKeys(CONTRACT_KEYS);
    ConfigSection f = t.section("fingerprint");
    f.allowKeys(FINGERPRINT_KEYS);
    return new Partial(
        t.choice("class", null, ToolClass.class),
        pointers(f, "include"),
        pointers(f, "exclude"),
        defaults(f.section("defaults")),
        pointers(f, "secrets"),
        t.duration("attachWindow", null, POSITIVE, MAX_WINDOW),
        t.duration("attachWait", null, Duration.ZERO, MAX_ATTACH_WAIT),
        t.duration("resultRetention", null, POSITIVE, MAX_WINDOW),
        t.choice("unknownOutcome", null, UnknownOutcomePolicy.class),
        t.string(
            "statusTool",
            null,
            s -> TOOL_NAME.matcher(s).matches() && !s.isBlank(),
            "a tool name of 1-128 characters"),
        statusArguments(t.section("statusArguments")),
        t.string(
            "statusExecutionIdArgument",
            null,
            s -> ARGUMENT_NAME.matcher(s).matches(),
            "an argument name of 1-128 characters"),
        t.bool("confirmationRequired", null),
        t.choice("onDisconnect", null, DisconnectBehaviour.class),
        t.duration("replayWindow", null, Duration.ZERO, MAX_WINDOW),
        t.bool("releaseOnError", null));
  }

  /** A list of distinct JSON pointers, or {@code null} when absent. Pointers are shown. */
  private static List<String> pointers(ConfigSection f, String key) {
    if (!f.has(key)) {
      return null;
    }
    JsonNode v = f.raw(key);
    if (!v.isArray()) {
      f.problemShown(
          key, Problems.show("", v), "a list of RFC 6901 JSON pointers like [/title, /a/0]");
      return List.of();
    }
    List<String> out = new ArrayList<>();
    Iterator<JsonNode> it = v.elements();
    for (int i = 0; it.hasNext(); i++) {
      JsonNode e = it.next();
      String at = key + '[' + i + ']';
      if (!e.isTextual() || !POINTER.matcher(e.asText()).matches()) {
        f.problemShown(at, Problems.show("", e), POINTER_EXPECTED);
      } else if (out.contains(e.asText())) {
        f.problemShown(at, Problems.sanitize(e.asText()), "each pointer once");
      } else {
        out.add(e.asText());
      }
    }
    return List.copyOf(out);
  }

  /**
   * Status tool argument name → pointer into the call's arguments, or {@code null} when absent.
   * Pointers are shown (they are configuration, not values).
   */
  private static Map<String, String> statusArguments(ConfigSection s) {
    if (!s.isPresent()) {
      return null;
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (String name : s.keys()) {
      JsonNode v = s.raw(name);
      if (!ARGUMENT_NAME.matcher(name).matches()) {
        s.problemShown(name, Problems.sanitize(name), "an argument name of 1-128 characters");
      } else if (!v.isTextual() || !POINTER.matcher(v.asText()).matches()) {
        s.problemShown(name, Problems.show("", v), POINTER_EXPECTED + " into the call's arguments");
      } else {
        out.put(name, v.asText());
      }
    }
    return out;
  }

  /** Pointer → default value, or {@code null} when absent. */
  private static Map<String, JsonNode> defaults(ConfigSection d) {
    if (!d.isPresent()) {
      return null;
    }
    Map<String, JsonNode> out = new LinkedHashMap<>();
    for (String pointer : d.keys()) {
      if (!POINTER.matcher(pointer).matches()) {
        d.problem(pointer, "not a JSON pointer (expected: " + POINTER_EXPECTED + " as the key)");
      } else {
        out.put(pointer, d.raw(pointer).deepCopy());
      }
    }
    return out;
  }

  /** One entry as written: {@code null} fields are not set and inherit. */
  record Partial(
      ToolClass toolClass,
      List<String> include,
      List<String> exclude,
      Map<String, JsonNode> defaults,
      List<String> secrets,
      Duration attachWindow,
      Duration attachWait,
      Duration resultRetention,
      UnknownOutcomePolicy unknownOutcome,
      String statusTool,
      Map<String, String> statusArguments,
      String statusExecutionIdArgument,
      Boolean confirmationRequired,
      DisconnectBehaviour onDisconnect,
      Duration replayWindow,
      Boolean releaseOnError) {
    static final Partial EMPTY =
        new Partial(
            null, null, null, null, null, null, null, null, null, null, null, null, null, null,
            null, null);
  }

  static FingerprintRules rules(
      List<String> include,
      List<String> exclude,
      Map<String, JsonNode> defaults,
      List<String> secrets) {
    return new FingerprintRules(
        include == null ? List.of() : include,
        exclude == null ? List.of() : exclude,
        defaults == null ? Map.of() : defaults,
        secrets == null ? List.of() : secrets);
  }
}
