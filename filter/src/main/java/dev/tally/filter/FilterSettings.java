package dev.tally.filter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Frozen settings of a {@link TallyFilter}. Every key has a documented default; the same dotted
 * names are used as filter init-params and in the YAML file. Precedence: init-param > file >
 * default.
 *
 * @param maxRequestBytes largest accepted POST body ({@value #KEY_MAX_REQUEST_BYTES}, default
 *     {@value #DEFAULT_MAX_REQUEST_BYTES}); larger bodies are refused with 413
 * @param maxResponseBytes largest response (or SSE event) the filter reads to find a result
 *     ({@value #KEY_MAX_RESPONSE_BYTES}, default {@value #DEFAULT_MAX_RESPONSE_BYTES})
 * @param framing how the filter's own answers are framed ({@value #KEY_FRAMING}: {@code auto},
 *     {@code sse} or {@code json}; default {@code auto})
 * @param target the upstream identity recorded in action records ({@value #KEY_TARGET}, default
 *     {@value #DEFAULT_TARGET})
 * @param actorHeader a trusted request header naming the actor ({@value #KEY_ACTOR_HEADER}); {@code
 *     null}: the bearer token's keyed hash, else {@code anonymous}
 * @param storeKind {@code memory} or {@code journal} ({@value #KEY_STORE_KIND}, default {@code
 *     memory}); ignored when the builder is given a store
 * @param storeDir the journal directory ({@value #KEY_STORE_DIR})
 * @param keyFile a file holding the Base64 HMAC key ({@value #KEY_KEYS_FILE})
 * @param keyEnv an environment variable holding the Base64 HMAC key ({@value #KEY_KEYS_ENV},
 *     default {@value #DEFAULT_KEY_ENV})
 * @param keyId the key's id ({@value #KEY_KEYS_ID}, default {@value #DEFAULT_KEY_ID})
 */
public record FilterSettings(
    int maxRequestBytes,
    int maxResponseBytes,
    Framing framing,
    String target,
    String actorHeader,
    String storeKind,
    Path storeDir,
    Path keyFile,
    String keyEnv,
    String keyId) {

  /** How the filter frames the answers it writes itself. */
  public enum Framing {
    /** SSE when the request's {@code Accept} lists {@code text/event-stream}, else JSON. */
    AUTO,
    SSE,
    JSON
  }

  public static final String KEY_CONFIG = "tally.config";
  public static final String KEY_MAX_REQUEST_BYTES = "filter.maxRequestBytes";
  public static final String KEY_MAX_RESPONSE_BYTES = "filter.maxResponseBytes";
  public static final String KEY_FRAMING = "filter.framing";
  public static final String KEY_TARGET = "filter.target";
  public static final String KEY_ACTOR_HEADER = "actor.header";
  public static final String KEY_STORE_KIND = "store.kind";
  public static final String KEY_STORE_DIR = "store.dir";
  public static final String KEY_KEYS_FILE = "keys.file";
  public static final String KEY_KEYS_ENV = "keys.env";
  public static final String KEY_KEYS_ID = "keys.id";

  public static final int DEFAULT_MAX_REQUEST_BYTES = 4 * 1024 * 1024;
  public static final int DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
  public static final String DEFAULT_TARGET = "app";
  public static final String DEFAULT_KEY_ENV = "TALLY_HMAC_KEY";
  public static final String DEFAULT_KEY_ID = "k1";

  public FilterSettings {
    require(maxRequestBytes > 0, KEY_MAX_REQUEST_BYTES, maxRequestBytes, "a positive size");
    require(maxResponseBytes > 0, KEY_MAX_RESPONSE_BYTES, maxResponseBytes, "a positive size");
    Objects.requireNonNull(framing, KEY_FRAMING);
    require(target != null && !target.isBlank(), KEY_TARGET, target, "a non-empty name");
    require(
        "memory".equals(storeKind) || "journal".equals(storeKind),
        KEY_STORE_KIND,
        storeKind,
        "memory or journal");
    require(
        !"journal".equals(storeKind) || storeDir != null,
        KEY_STORE_DIR,
        null,
        "a directory when store.kind is journal");
    require(keyId != null && !keyId.isBlank(), KEY_KEYS_ID, keyId, "a non-empty key id");
  }

  /** Every setting at its default. */
  public static FilterSettings defaults() {
    return fromParameters(k -> null);
  }

  /**
   * Settings from named parameters (filter init-params): {@value #KEY_CONFIG} names a YAML file
   * read first; every other parameter overrides the file.
   *
   * @throws IllegalArgumentException naming the key, the value and what was expected
   */
  public static FilterSettings fromParameters(Function<String, String> params) {
    Map<String, String> values = new HashMap<>();
    String file = params.apply(KEY_CONFIG);
    if (file != null && !file.isBlank()) {
      values.putAll(readYaml(Path.of(file.trim())));
    }
    for (String k :
        new String[] {
          KEY_MAX_REQUEST_BYTES,
          KEY_MAX_RESPONSE_BYTES,
          KEY_FRAMING,
          KEY_TARGET,
          KEY_ACTOR_HEADER,
          KEY_STORE_KIND,
          KEY_STORE_DIR,
          KEY_KEYS_FILE,
          KEY_KEYS_ENV,
          KEY_KEYS_ID
        }) {
      String v = params.apply(k);
      if (v != null) {
        values.put(k, v.trim());
      }
    }
    return fromMap(values);
  }

  /** Settings from a YAML file with the same dotted keys as nested mappings. */
  public static FilterSettings fromYaml(Path file) {
    return fromMap(readYaml(file));
  }

  /** A copy with another store. */
  public FilterSettings withStoreKind(String kind, Path dir) {
    return new FilterSettings(
        maxRequestBytes,
        maxResponseBytes,
        framing,
        target,
        actorHeader,
        kind,
        dir,
        keyFile,
        keyEnv,
        keyId);
  }

  /** A copy with other body limits. */
  public FilterSettings withLimits(int maxRequest, int maxResponse) {
    return new FilterSettings(
        maxRequest,
        maxResponse,
        framing,
        target,
        actorHeader,
        storeKind,
        storeDir,
        keyFile,
        keyEnv,
        keyId);
  }

  /** A copy with another framing. */
  public FilterSettings withFraming(Framing f) {
    return new FilterSettings(
        maxRequestBytes,
        maxResponseBytes,
        f,
        target,
        actorHeader,
        storeKind,
        storeDir,
        keyFile,
        keyEnv,
        keyId);
  }

  private static FilterSettings fromMap(Map<String, String> v) {
    return new FilterSettings(
        size(v, KEY_MAX_REQUEST_BYTES, DEFAULT_MAX_REQUEST_BYTES),
        size(v, KEY_MAX_RESPONSE_BYTES, DEFAULT_MAX_RESPONSE_BYTES),
        framing(v.get(KEY_FRAMING)),
        v.getOrDefault(KEY_TARGET, DEFAULT_TARGET),
        blankToNull(v.get(KEY_ACTOR_HEADER)),
        v.getOrDefault(KEY_STORE_KIND, "memory"),
        path(v.get(KEY_STORE_DIR)),
        path(v.get(KEY_KEYS_FILE)),
        v.getOrDefault(KEY_KEYS_ENV, DEFAULT_KEY_ENV),
        v.getOrDefault(KEY_KEYS_ID, DEFAULT_KEY_ID));
  }

  private static Map<String, String> readYaml(Path file) {
    JsonNode root;
    try {
      root = new ObjectMapper(new YAMLFactory()).readTree(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new IllegalArgumentException(
          KEY_CONFIG
              + ": "
              + file
              + " (expected: a readable YAML file; "
              + e.getClass().getSimpleName()
              + ")");
    }
    Map<String, String> out = new HashMap<>();
    if (root != null && root.isObject()) {
      flatten("", root, out);
    } else if (root != null && !root.isNull() && !root.isMissingNode()) {
      throw new IllegalArgumentException(KEY_CONFIG + ": " + file + " (expected: a YAML mapping)");
    }
    return out;
  }

  private static void flatten(String prefix, JsonNode node, Map<String, String> out) {
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      String key = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
      if (e.getValue().isObject()) {
        flatten(key, e.getValue(), out);
      } else if (e.getValue().isValueNode()) {
        out.put(key, e.getValue().asText());
      }
    }
  }

  private static int size(Map<String, String> v, String key, int dflt) {
    String s = v.get(key);
    if (s == null || s.isBlank()) {
      return dflt;
    }
    String t = s.trim().toLowerCase(Locale.ROOT);
    long mult = 1;
    if (t.endsWith("kib") || t.endsWith("k")) {
      mult = 1024;
    } else if (t.endsWith("mib") || t.endsWith("m")) {
      mult = 1024 * 1024;
    }
    String digits = t.replaceAll("[a-z]+$", "");
    try {
      long n = Long.parseLong(digits) * mult;
      require(n > 0 && n <= Integer.MAX_VALUE, key, s, "a positive size up to 2 GiB");
      return (int) n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          key + ": " + s + " (expected: a size in bytes, e.g. 4194304, 4096k or 4m)");
    }
  }

  private static Framing framing(String s) {
    if (s == null || s.isBlank()) {
      return Framing.AUTO;
    }
    try {
      return Framing.valueOf(s.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(KEY_FRAMING + ": " + s + " (expected: auto, sse or json)");
    }
  }

  private static Path path(String s) {
    return s == null || s.isBlank() ? null : Path.of(s.trim());
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  private static void require(boolean ok, String key, Object value, String expected) {
    if (!ok) {
      throw new IllegalArgumentException(key + ": " + value + " (expected: " + expected + ")");
    }
  }
}
