package dev.tally.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.contract.DisconnectBehaviour;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigSectionTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static ConfigSection section(String json) throws Exception {
    JsonNode n = JSON.readTree(json);
    return ConfigSection.of("sidecar", n);
  }

  @Test
  void unknownKeyListsAllowedKeysAndSuggestsTheClosest() throws Exception {
    ConfigSection s = section("{\"prot\": 8080, \"host\": \"x\"}");
    s.allowKeys("port", "host");
    assertThat(s.problems())
        .containsExactly(
            "sidecar.prot: unknown key (did you mean port?) (expected one of: port, host)");
  }

  @Test
  void unknownKeyWithoutCloseMatchHasNoSuggestion() throws Exception {
    ConfigSection s = section("{\"completelyElse\": 1}");
    s.allowKeys("port");
    assertThat(s.problems())
        .containsExactly("sidecar.completelyElse: unknown key (expected one of: port)");
  }

  @Test
  void readsTypedValuesFromYamlTypesAndStrings() throws Exception {
    ConfigSection s =
        section(
            "{\"port\": 8080, \"portText\": \"9090\", \"on\": true, \"onText\": \"FALSE\","
                + " \"size\": \"4MiB\", \"wait\": \"30s\", \"mode\": \"cancel\"}");
    assertThat(s.integer("port", 1, 0, 65535)).isEqualTo(8080);
    assertThat(s.integer("portText", 1, 0, 65535)).isEqualTo(9090);
    assertThat(s.bool("on", false)).isTrue();
    assertThat(s.bool("onText", true)).isFalse();
    assertThat(s.bytes("size", 0L, 0, Long.MAX_VALUE)).isEqualTo(4L << 20);
    assertThat(s.duration("wait", null, Duration.ZERO, Duration.ofHours(1)))
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(s.choice("mode", DisconnectBehaviour.FINISH, DisconnectBehaviour.class))
        .isEqualTo(DisconnectBehaviour.CANCEL);
    assertThat(s.problems()).isEmpty();
  }

  @Test
  void absentAndNullKeysGiveTheDefault() throws Exception {
    ConfigSection s = section("{\"port\": null}");
    assertThat(s.integer("port", 7, 0, 10)).isEqualTo(7);
    assertThat(s.string("host", "h")).isEqualTo("h");
    assertThat(s.duration("wait", null, Duration.ZERO, Duration.ofHours(1))).isNull();
    assertThat(s.problems()).isEmpty();
  }

  @Test
  void badValuesAreAllCollectedWithPathValueAndExpectation() throws Exception {
    ConfigSection s =
        section(
            "{\"port\": 70000, \"on\": \"yes\", \"wait\": \"-5m\", \"window\": \"20d\","
                + " \"mode\": \"stop\", \"size\": \"huge\", \"name\": 5, \"tls\": [1]}");
    s.integer("port", 1, 0, 65535);
    s.bool("on", false);
    s.duration("wait", null, Duration.ofMillis(1), Duration.ofDays(1));
    s.duration("window", null, Duration.ofMillis(1), Duration.ofDays(1));
    s.choice("mode", DisconnectBehaviour.FINISH, DisconnectBehaviour.class);
    s.bytes("size", 0L, 0, 1 << 20);
    s.string("name", null);
    s.section("tls");
    assertThat(s.problems())
        .containsExactly(
            "sidecar.port: 70000 (expected: an integer from 0 to 65535)",
            "sidecar.on: yes (expected: true or false)",
            "sidecar.wait: -5m (expected: a positive duration like 30s, 10m, 24h)",
            "sidecar.window: 20d (expected: a positive duration of at most 1d)",
            "sidecar.mode: stop (expected: one of finish, cancel)",
            "sidecar.size: huge (expected: a size from 0 to 1MiB, in bytes or like 512KiB, 4MiB)",
            "sidecar.name: 5 (expected: a string)",
            "sidecar.tls: a list (expected: a mapping of keys to values)");
    assertThatThrownBy(() -> s.throwIfInvalid("config file x.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("invalid config file x.yaml: 8 problems\n  - sidecar.port: 70000")
        .satisfies(e -> assertThat(((ConfigException) e).problems()).hasSize(8));
  }

  @Test
  void valuesUnderSecretLookingKeysAreNeverShown() throws Exception {
    ConfigSection s =
        section(
            "{\"apiToken\": 123, \"password\": 5, \"auth\": {\"clientSecret\": [\"s3cr3t\"]},"
                + " \"signingKey\": 7}");
    s.string("apiToken", null);
    s.string("password", null);
    s.section("auth").strings("clientSecret", List.of(), v -> false, "a word");
    s.string("signingKey", null);
    assertThat(s.problems())
        .containsExactly(
            "sidecar.apiToken: <redacted> (expected: a string)",
            "sidecar.password: <redacted> (expected: a string)",
            "sidecar.auth.clientSecret[0]: <redacted> (expected: a word)",
            "sidecar.signingKey: <redacted> (expected: a string)");
    assertThat(String.join("\n", s.problems())).doesNotContain("s3cr3t", "123");
  }

  @Test
  void shownValuesAreCutAndStrippedOfControlCharacters() throws Exception {
    String longValue = "x".repeat(200);
    ConfigSection s =
        section("{\"a\": \"" + longValue + "\", \"b\": \"evil\\u001b[2J\\u202eline\"}");
    s.integer("a", 0, 0, 1);
    s.integer("b", 0, 0, 1);
    assertThat(s.problems().get(0)).contains("x".repeat(80) + "…").doesNotContain("x".repeat(81));
    assertThat(s.problems().get(1)).contains("evil?[2J?line").doesNotContain("\u001b");
  }

  @Test
  void aSingleStringCountsAsAListOfOne() throws Exception {
    ConfigSection s = section("{\"hosts\": \"a\", \"many\": [\"b\", 3, \"c\"]}");
    assertThat(s.strings("hosts", List.of(), v -> true, "a host")).containsExactly("a");
    assertThat(s.strings("many", List.of(), v -> true, "a host")).containsExactly("b", "c");
    assertThat(s.problems()).containsExactly("sidecar.many[1]: 3 (expected: a host)");
  }

  @Test
  void aSectionThatIsNotAMappingIsAProblem() throws Exception {
    ConfigSection s = ConfigSection.of("sidecar", JSON.readTree("\"oops\""));
    assertThat(s.problems())
        .containsExactly("sidecar: oops (expected: a mapping of keys to values)");
  }
}
