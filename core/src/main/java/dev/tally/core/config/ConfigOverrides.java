package dev.tally.core.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The values that override the configuration file: environment variables and command-line flags.
 * Precedence is flag &gt; environment &gt; file &gt; default. Flags are given as key paths ({@code
 * limits.maxJsonDepth} → {@code "128"}); environment variables are looked up by {@link
 * ConfigKeys#envName(String)} for every key in {@link ConfigKeys#ENV_KEYS}. An empty variable
 * counts as unset. The environment map is injected so tests never depend on the real one.
 *
 * <p>{@link #toString()} never shows the environment: it may hold secrets unrelated to Tally.
 */
public final class ConfigOverrides {
  private static final ConfigOverrides NONE = new ConfigOverrides(Map.of(), Map.of());

  private final Map<String, String> env;
  private final Map<String, String> flags;

  private ConfigOverrides(Map<String, String> env, Map<String, String> flags) {
    this.env = env;
    this.flags = flags;
  }

  /** No overrides: the file and the defaults only. */
  public static ConfigOverrides none() {
    return NONE;
  }

  /** Overrides from {@code env} (e.g. {@link System#getenv()}), no flags. */
  public static ConfigOverrides ofEnv(Map<String, String> env) {
    return new ConfigOverrides(Map.copyOf(env), Map.of());
  }

  /** These overrides plus a flag setting key path {@code path} to {@code value}. */
  public ConfigOverrides withFlag(String path, String value) {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(value, "value");
    Map<String, String> f = new LinkedHashMap<>(flags);
    f.put(path, value);
    return new ConfigOverrides(env, Map.copyOf(f));
  }

  /** The environment variable {@code name}, or {@code null} when unset or empty. */
  public String env(String name) {
    String v = env.get(name);
    return v == null || v.isEmpty() ? null : v;
  }

  Map<String, String> envMap() {
    return env;
  }

  /** The flags, key path to value. */
  public Map<String, String> flags() {
    return flags;
  }

  @Override
  public String toString() {
    return "ConfigOverrides[env=" + env.size() + " variables, flags=" + flags.keySet() + "]";
  }
}
