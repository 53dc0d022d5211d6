package dev.tally.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The parsed output of one {@code helm template}: its manifests and look-ups into them. */
final class Rendered {
  static final ObjectMapper YAML = new YAMLMapper();

  private final List<JsonNode> docs;

  private Rendered(List<JsonNode> docs) {
    this.docs = List.copyOf(docs);
  }

  static Rendered parse(String manifests) {
    List<JsonNode> docs = new ArrayList<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(manifests)) {
      while (it.hasNext()) {
        JsonNode d = it.next();
        if (d != null && !d.isNull() && !d.isMissingNode() && d.has("kind")) {
          docs.add(d);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("helm template output is not YAML", e);
    }
    return new Rendered(docs);
  }

  List<JsonNode> all(String kind) {
    return docs.stream().filter(d -> d.path("kind").asText().equals(kind)).toList();
  }

  Optional<JsonNode> find(String kind, String name) {
    return all(kind).stream()
        .filter(d -> d.path("metadata").path("name").asText().equals(name))
        .findFirst();
  }

  JsonNode one(String kind) {
    List<JsonNode> found = all(kind);
    assertThat(found).as("exactly one " + kind).hasSize(1);
    return found.get(0);
  }

  /** The pod template of the one Deployment. */
  JsonNode pod() {
    return one("Deployment").path("spec").path("template").path("spec");
  }

  static JsonNode named(JsonNode array, String name) {
    for (JsonNode n : array) {
      if (n.path("name").asText().equals(name)) {
        return n;
      }
    }
    throw new AssertionError("no element named " + name + " in " + array);
  }

  static List<String> names(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.path("name").asText()));
    return out;
  }

  /** The container port a probe's or Service's port (a number or a port name) points at. */
  static int resolvePort(JsonNode container, JsonNode port) {
    if (port.isInt()) {
      return port.asInt();
    }
    return named(container.path("ports"), port.asText()).path("containerPort").asInt();
  }

  /** The tally.yaml the ConfigMap carries, parsed. */
  JsonNode tallyConfig() {
    try {
      return YAML.readTree(one("ConfigMap").path("data").path("tally.yaml").asText());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String configText() {
    return one("ConfigMap").path("data").path("tally.yaml").asText();
  }
}
