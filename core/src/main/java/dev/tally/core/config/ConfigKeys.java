package dev.tally.core.config;

import java.util.List;
import java.util.Locale;

/**
 * The scalar keys of the core sections that environment variables can set, and how a key path maps
 * to its variable: {@code TALLY_} followed by the path's segments in upper snake case, so {@code
 * limits.maxJsonDepth} is {@code TALLY_LIMITS_MAX_JSON_DEPTH} and {@code
 * tools.default.attachWindow} is {@code TALLY_TOOLS_DEFAULT_ATTACH_WINDOW}. Adapter sections map
 * their keys the same way ({@link #envName(String)}).
 */
public final class ConfigKeys {
  /** The environment variable naming the configuration file (the {@code --config} flag wins). */
  public static final String CONFIG_FILE_ENV = "TALLY_CONFIG";

  /** Every key path an environment variable can set, in documentation order. */
  public static final List<String> ENV_KEYS =
      List.of(
          "store",
          "hmac.keyFile",
          "journal.compactMinBytes",
          "journal.compactRatio",
          "journal.maxGroupDelay",
          "journal.preallocateBytes",
          "journal.maxBytes",
          "memory.maxBytes",
          "audit.dir",
          "actor.mode",
          "actor.header",
          "actor.claim",
          "actor.value",
          "actor.anonymous",
          "idempotency.argument",
          "idempotency.header",
          "intentScope.header",
          "limits.maxRequestBytes",
          "limits.maxJsonDepth",
          "limits.maxResultBytes",
          "lease.duration",
          "lease.heartbeat",
          "tools.default.class",
          "tools.default.attachWindow",
          "tools.default.attachWait",
          "tools.default.resultRetention",
          "tools.default.unknownOutcome",
          "tools.default.statusTool",
          "tools.default.confirmationRequired",
          "tools.default.onDisconnect",
          "tools.default.replayWindow",
          "tools.default.releaseOnError",
          "writes.enabled",
          "writes.scopeHeader",
          "writes.scope",
          "confirmation.expiry",
          "confirmation.url");

  /**
   * The prefixes of variables that belong to core sections; a variable with one of these prefixes
   * that names no key in {@link #ENV_KEYS} is reported as a typo.
   */
  static final List<String> CORE_ENV_PREFIXES =
      List.of(
          "TALLY_STORE_",
          "TALLY_HMAC_",
          "TALLY_JOURNAL_",
          "TALLY_MEMORY_",
          "TALLY_AUDIT_",
          "TALLY_ACTOR_",
          "TALLY_IDEMPOTENCY_",
          "TALLY_INTENT_SCOPE_",
          "TALLY_LIMITS_",
          "TALLY_LEASE_",
          "TALLY_TOOLS_",
          "TALLY_WRITES_",
          "TALLY_CONFIRMATION_");

  private ConfigKeys() {}

  /** The environment variable for key path {@code path}. */
  public static String envName(String path) {
    StringBuilder sb = new StringBuilder("TALLY");
    for (String segment : path.split("\\.")) {
      sb.append('_');
      for (int i = 0; i < segment.length(); i++) {
        char c = segment.charAt(i);
        if (Character.isUpperCase(c) && i > 0) {
          sb.append('_');
        }
        sb.append(c == '-' ? '_' : Character.toUpperCase(c));
      }
    }
    return sb.toString().toUpperCase(Locale.ROOT);
  }
}
