package dev.tally.sidecar.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.NodePath;
import dev.tally.core.config.ConfigValues;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a configuration file against {@code config/tally.schema.json} (JSON Schema draft 2020-12,
 * bundled in the jar as {@value #RESOURCE}). One line per problem, in the style of the core's
 * messages: {@code key.path: value (expected: ...)}, values under secret-looking keys redacted.
 *
 * <p>What the schema sees: the file as written, without environment variables or flags (those are
 * checked by the core's own rules), and without keys whose value is empty ({@code key:} means
 * "unset" in a Tally file, config/README.md). A YAML syntax error yields no schema problems; the
 * core reports it with line and column.
 */
final class ConfigSchema {
  /** Where the build puts the schema inside the jar. */
  static final String RESOURCE = "/dev/tally/sidecar/config/tally.schema.json";

  private static final ObjectMapper YAML = new YAMLMapper();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Schema schema;

  private ConfigSchema(Schema schema) {
    this.schema = schema;
  }

  /** The bundled schema; throws {@link IllegalStateException} if the jar lacks it (a bad build). */
  static ConfigSchema bundled() {
    try (InputStream in = ConfigSchema.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the jar (a broken build)");
      }
      SchemaRegistry registry =
          SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
      return new ConfigSchema(registry.getSchema(in, InputFormat.JSON));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The problems the schema finds in {@code yaml}; empty when it conforms (or does not parse). */
  List<String> problems(String yaml) {
    JsonNode tree;
    try {
      tree = YAML.readTree(yaml);
    } catch (JsonProcessingException e) {
      return List.of(); // the core names the line and column
    }
    if (tree == null || tree.isMissingNode() || tree.isNull()) {
      return List.of();
    }
    JsonNode instance = withoutEmptyValues(tree.deepCopy());
    String json;
    try {
      json = JSON.writeValueAsString(instance);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a parsed YAML tree did not serialize as JSON", e);
    }
    Set<String> out = new LinkedHashSet<>();
    for (Error e : schema.validate(json, InputFormat.JSON)) {
      out.add(describe(e, instance));
    }
    return List.copyOf(out);
  }

  private static JsonNode withoutEmptyValues(JsonNode n) {
    if (n instanceof ObjectNode o) {
      for (Iterator<Map.Entry<String, JsonNode>> it = o.properties().iterator(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (e.getValue().isNull()) {
          it.remove();
        } else {
          withoutEmptyValues(e.getValue());
        }
      }
    } else if (n.isArray()) {
      n.forEach(ConfigSchema::withoutEmptyValues);
    }
    return n;
  }

  private static String describe(Error e, JsonNode root) {
    List<String> names = new ArrayList<>();
    StringBuilder pointer = new StringBuilder();
    NodePath at = e.getInstanceLocation();
    for (int i = 0; i < at.getNameCount(); i++) {
      String name = at.getName(i);
      names.add(name);
      pointer.append('/').append(name.replace("~", "~0").replace("/", "~1"));
    }
    String keyword = e.getKeyword();
    if (("additionalProperties".equals(keyword) || "unevaluatedProperties".equals(keyword))
        && e.getProperty() != null) {
      names.add(e.getProperty());
      return String.join(".", names)
          + ": unknown key (expected one of the keys config/tally.schema.json allows here)";
    }
    if ("required".equals(keyword) && e.getProperty() != null) {
      names.add(e.getProperty());
      return String.join(".", names) + ": missing (expected: required here by the schema)";
    }
    String path = names.isEmpty() ? "(document)" : String.join(".", names);
    JsonNode value = root.at(pointer.toString());
    return path
        + ": "
        + ConfigValues.shown(path, value)
        + " (expected per config/tally.schema.json: "
        + expected(e)
        + ")";
  }

  /** The library's message without its leading instance location. */
  private static String expected(Error e) {
    String m = e.getMessage() == null ? e.getKeyword() : e.getMessage();
    int colon = m.indexOf(": ");
    if (m.startsWith("$") && colon > 0) {
      m = m.substring(colon + 2);
    }
    return m;
  }
}
