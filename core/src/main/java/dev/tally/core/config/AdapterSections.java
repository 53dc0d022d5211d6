package dev.tally.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The sections owned by the adapters ({@code sidecar:}, {@code admin:}, {@code filter:}, {@code
 * stream:}, {@code upstream:}), kept unvalidated as JSON trees; each adapter validates its own with
 * {@link ConfigSection}. Reads return copies, so the configuration stays immutable. {@link
 * #toString()} lists section names only: these sections may hold credentials.
 */
public final class AdapterSections {
  /** The top-level keys reserved for adapters. */
  public static final List<String> NAMES =
      List.of("sidecar", "admin", "filter", "stream", "upstream");

  static final AdapterSections NONE = new AdapterSections(Map.of());

  private final Map<String, JsonNode> sections;

  private AdapterSections(Map<String, JsonNode> sections) {
    this.sections = sections;
  }

  static AdapterSections of(Map<String, JsonNode> sections) {
    Map<String, JsonNode> m = new LinkedHashMap<>();
    sections.forEach((k, v) -> m.put(k, v.deepCopy()));
    return new AdapterSections(Map.copyOf(m));
  }

  /** A copy of section {@code name}, or {@link MissingNode} when it is not configured. */
  public JsonNode get(String name) {
    JsonNode n = sections.get(name);
    return n == null ? MissingNode.getInstance() : n.deepCopy();
  }

  /** Section {@code name} ready for validation with the shared messages. */
  public ConfigSection section(String name) {
    return ConfigSection.of(name, get(name));
  }

  /**
   * Section {@code name} with environment overrides applied to {@code scalarKeys} (key {@code port}
   * of {@code sidecar} is set by {@code TALLY_SIDECAR_PORT}). Flags were already applied when the
   * configuration was loaded.
   */
  public ConfigSection section(
      String name, ConfigOverrides overrides, Collection<String> scalarKeys) {
    JsonNode n = get(name);
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    if (!n.isMissingNode()) {
      root.set(name, n);
    }
    Problems problems = new Problems();
    List<String> paths = new ArrayList<>();
    for (String key : scalarKeys) {
      paths.add(name + '.' + key);
    }
    Overlay.applyEnv(root, paths, overrides, problems);
    return ConfigSection.root(root, problems).section(name);
  }

  /** The names of the configured adapter sections. */
  public Set<String> names() {
    return sections.keySet();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AdapterSections a && a.sections.equals(sections);
  }

  @Override
  public int hashCode() {
    return sections.hashCode();
  }

  @Override
  public String toString() {
    return "AdapterSections" + sections.keySet();
  }
}
