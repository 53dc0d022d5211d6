package dev.tally.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.tally.core.actor.ActorConfig;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.contract.UnknownOutcomePolicy;
import dev.tally.core.fingerprint.KeyFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The shipped example, schema and README agree with the parser. */
class ExampleConfigTest {
  private static final Path CONFIG_DIR =
      Path.of(System.getProperty("basedir", ".")).resolve("../config").normalize();
  private static final Path EXAMPLE = CONFIG_DIR.resolve("tally.example.yaml");

  private static JsonNode schema() throws Exception {
    return new ObjectMapper().readTree(CONFIG_DIR.resolve("tally.schema.json").toFile());
  }

  @Test
  void theExampleParses() {
    TallyConfig c = TallyConfig.load(EXAMPLE, Map.of());
    ToolContract ticket = c.tools().tools().get("create_ticket");
    assertThat(ticket.toolClass()).isEqualTo(ToolClass.KEYED);
    assertThat(ticket.unknownOutcome()).isEqualTo(UnknownOutcomePolicy.REDISPATCH);
    assertThat(ticket.attachWindow()).isEqualTo(Duration.ofMinutes(30));
    ToolContract deploy = c.tools().tools().get("deploy_release");
    assertThat(deploy.toolClass()).isEqualTo(ToolClass.IRREVERSIBLE);
    assertThat(deploy.confirmationRequired()).isFalse();
    assertThat(deploy.fingerprint().secrets()).containsExactly("/approvalToken");
    assertThat(deploy.fingerprint().exclude()).containsExactly("/traceId");
    assertThat(c.tools().tools().get("search").isReadOnly()).isTrue();
    assertThat(c.tools().defaults().source()).isEqualTo(ToolContract.Source.CONFIGURATION);
    assertThat(c.actor()).isEqualTo(ActorConfig.DEFAULT);
    assertThat(c.hmac().keyFile()).isEqualTo(Path.of("/etc/tally/hmac.keys"));
  }

  @Test
  void everyKeyOfTheExampleIsInTheSchema() throws Exception {
    JsonNode schema = schema();
    JsonNode example = new YAMLMapper().readTree(EXAMPLE.toFile());
    List<String> missing = new ArrayList<>();
    walk(schema, schema, example, "", missing);
    assertThat(missing).isEmpty();
  }

  @Test
  void everyOverridableKeyIsInTheSchemaAndEveryCoreScalarIsOverridable() throws Exception {
    JsonNode schema = schema();
    for (String path : ConfigKeys.ENV_KEYS) {
      assertThat(resolvePath(schema, path)).as(path).isNotNull();
    }
    TreeSet<String> scalars = new TreeSet<>();
    JsonNode top = schema.get("properties");
    for (String section :
        List.of(
            "actor",
            "idempotency",
            "intentScope",
            "limits",
            "lease",
            "hmac",
            "journal",
            "memory",
            "audit",
            "writes",
            "confirmation")) {
      JsonNode props = top.get(section).get("properties");
      props
          .fieldNames()
          .forEachRemaining(
              k -> {
                // Lists and mappings (actor.sources, actor.jwt) are set in the file only.
                String type = props.get(k).path("type").asText("");
                if (!type.equals("array") && !type.equals("object")) {
                  scalars.add(section + "." + k);
                }
              });
    }
    scalars.add("store");
    // Lists and maps are not scalars: no variable sets them.
    scalars.removeAll(List.of("writes.neverExposed", "writes.actors", "confirmation.tools"));
    TreeSet<String> env = new TreeSet<>(ConfigKeys.ENV_KEYS);
    env.removeIf(p -> p.startsWith("tools."));
    assertThat(scalars).isEqualTo(env);
  }

  @Test
  void theSchemaHasExactlyTheParsersKeys() throws Exception {
    JsonNode schema = schema();
    List<String> top = new ArrayList<>(TallyConfig.CORE_KEYS);
    top.addAll(AdapterSections.NAMES);
    assertThat(names(schema.get("properties"))).containsExactlyInAnyOrderElementsOf(top);
    JsonNode contract = schema.get("$defs").get("contract").get("properties");
    assertThat(names(contract)).containsExactlyInAnyOrderElementsOf(ToolsSection.CONTRACT_KEYS);
    assertThat(names(contract.get("fingerprint").get("properties")))
        .containsExactlyInAnyOrderElementsOf(ToolsSection.FINGERPRINT_KEYS);
  }

  @Test
  void theReadmeDocumentsEveryKeyWithItsVariableAndHelmKey() throws Exception {
    String readme = Files.readString(CONFIG_DIR.resolve("README.md"));
    for (String path : ConfigKeys.ENV_KEYS) {
      assertThat(readme)
          .as(path)
          .contains("| `" + path + "` |")
          .contains("`" + ConfigKeys.envName(path) + "`")
          .contains("`tally.config." + path + "`");
    }
    for (String key : ToolsSection.CONTRACT_KEYS) {
      if (!key.equals("fingerprint")) {
        assertThat(readme).as(key).contains("| `" + key + "` |");
      }
    }
    for (String key : ToolsSection.FINGERPRINT_KEYS) {
      assertThat(readme).as(key).contains("| `fingerprint." + key + "` |");
    }
  }

  @Test
  void theReadmeKeyFileExampleIsAValidKeyFile() throws Exception {
    String readme = Files.readString(CONFIG_DIR.resolve("README.md"));
    Matcher m = Pattern.compile("```\\n(# Lines starting.*?)```", Pattern.DOTALL).matcher(readme);
    assertThat(m.find()).isTrue();
    assertThat(KeyFiles.parse("README", m.group(1)).older()).hasSize(1);
  }

  @Test
  void envNamesAreUniqueAndFollowTheRule() {
    assertThat(ConfigKeys.envName("limits.maxJsonDepth")).isEqualTo("TALLY_LIMITS_MAX_JSON_DEPTH");
    assertThat(ConfigKeys.envName("hmac.keyFile")).isEqualTo("TALLY_HMAC_KEY_FILE");
    assertThat(ConfigKeys.envName("intentScope.header")).isEqualTo("TALLY_INTENT_SCOPE_HEADER");
    assertThat(ConfigKeys.ENV_KEYS.stream().map(ConfigKeys::envName).distinct().count())
        .isEqualTo(ConfigKeys.ENV_KEYS.size());
    for (String path : ConfigKeys.ENV_KEYS) {
      String name = ConfigKeys.envName(path);
      assertThat(
              ConfigKeys.CORE_ENV_PREFIXES.stream().anyMatch(name::startsWith)
                  || name.equals("TALLY_STORE"))
          .as(name)
          .isTrue();
    }
  }

  private static List<String> names(JsonNode properties) {
    List<String> out = new ArrayList<>();
    properties.fieldNames().forEachRemaining(out::add);
    return out;
  }

  /** Follows a local {@code $ref}. */
  private static JsonNode deref(JsonNode root, JsonNode s) {
    while (s != null && s.has("$ref")) {
      s = root.at(s.get("$ref").asText().substring(1));
    }
    return s;
  }

  /** The schema of one child key, or null when the schema does not allow it. */
  private static JsonNode child(JsonNode root, JsonNode schema, String key) {
    JsonNode s = deref(root, schema);
    if (s.has("properties") && s.get("properties").has(key)) {
      return deref(root, s.get("properties").get(key));
    }
    JsonNode extra = s.get("additionalProperties");
    if (extra == null || extra.isBoolean()) {
      boolean open = extra == null ? !s.has("properties") : extra.asBoolean();
      return open ? BooleanNode.TRUE : null;
    }
    return deref(root, extra);
  }

  private static JsonNode resolvePath(JsonNode root, String path) {
    JsonNode s = root;
    for (String key : path.split("\\.")) {
      s = child(root, s, key);
      if (s == null) {
        return null;
      }
    }
    return s;
  }

  private static void walk(
      JsonNode root, JsonNode schema, JsonNode value, String path, List<String> missing) {
    if (!value.isObject() || schema.isBoolean()) {
      return;
    }
    for (Iterator<String> it = value.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      String p = path.isEmpty() ? key : path + '.' + key;
      JsonNode s = child(root, schema, key);
      if (s == null) {
        missing.add(p);
      } else {
        walk(root, s, value.get(key), p, missing);
      }
    }
  }
}
