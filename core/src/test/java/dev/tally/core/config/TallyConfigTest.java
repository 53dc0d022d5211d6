package dev.tally.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tally.core.actor.ActorConfig;
import dev.tally.core.actor.JwtConfig;
import dev.tally.core.canonical.CanonicalLimits;
import dev.tally.core.gate.GateOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TallyConfigTest {

  private static List<String> problems(String yaml) {
    return problems(yaml, ConfigOverrides.none());
  }

  private static List<String> problems(String yaml, ConfigOverrides overrides) {
    return catchThrowableOfType(
            ConfigException.class, () -> TallyConfig.parse(yaml, "configuration", overrides))
        .problems();
  }

  @Test
  void emptyDocumentGivesTheDefaults() {
    assertThat(TallyConfig.parse("", Map.of())).isEqualTo(TallyConfig.defaults());
    assertThat(TallyConfig.parse("# only a comment\n", Map.of())).isEqualTo(TallyConfig.defaults());
  }

  @Test
  void defaultsAreTheDocumentedConstants() {
    TallyConfig c = TallyConfig.defaults();
    assertThat(c.version()).isEqualTo(1);
    assertThat(c.actor()).isEqualTo(ActorConfig.tokenHash("Authorization"));
    assertThat(c.idempotency())
        .isEqualTo(new IdempotencyConfig("idempotencyKey", "Idempotency-Key"));
    assertThat(c.intentScope().header()).isEqualTo("Tally-Intent-Scope");
    assertThat(c.limits().maxJsonDepth()).isEqualTo(64);
    // The canonical record may be twice the body limit plus 64 KiB (issue 21 case 8).
    assertThat(c.limits().canonical())
        .isEqualTo(
            new CanonicalLimits(
                CanonicalLimits.DEFAULT_MAX_DEPTH,
                2 * LimitsConfig.DEFAULT_MAX_REQUEST_BYTES
                    + LimitsConfig.CANONICAL_OVERHEAD_BYTES));
    assertThat(c.limits().maxResultBytes()).isEqualTo(1 << 20);
    assertThat(c.lease())
        .isEqualTo(new LeaseConfig(Duration.ofSeconds(30), Duration.ofSeconds(10)));
    assertThat(c.hmac().keyFile()).isNull();
    assertThat(c.store().kind()).isEqualTo(StoreConfig.Kind.JOURNAL);
    assertThat(c.store().generatedKeyFile()).isEqualTo(Path.of(".tally/journal/hmac.keys"));
    assertThat(c.tools().tools()).isEmpty();
    assertThat(c.adapters().names()).isEmpty();
  }

  @Test
  void readsEveryCoreSection() {
    TallyConfig c =
        TallyConfig.parse(
            """
            version: 1
            actor: {mode: jwt_claim, claim: /user/id, jwt: {verifiedBy: ingress}}
            idempotency: {argument: requestKey, header: X-Request-Key}
            intentScope: {header: X-Run-Id}
            limits: {maxRequestBytes: 512KiB, maxJsonDepth: 32, maxResultBytes: 0}
            lease: {duration: 1m, heartbeat: 15s}
            hmac: {keyFile: /run/secrets/tally.keys}
            store: postgres://tally@db:5432/tally
            """,
            Map.of());
    assertThat(c.actor())
        .isEqualTo(ActorConfig.jwtClaim("Authorization", "/user/id", JwtConfig.ingress()));
    assertThat(c.idempotency()).isEqualTo(new IdempotencyConfig("requestKey", "X-Request-Key"));
    assertThat(c.intentScope()).isEqualTo(new IntentScopeConfig("X-Run-Id"));
    assertThat(c.limits()).isEqualTo(new LimitsConfig(512 * 1024, 32, 0));
    assertThat(c.lease()).isEqualTo(new LeaseConfig(Duration.ofMinutes(1), Duration.ofSeconds(15)));
    assertThat(c.hmac().keyFile()).isEqualTo(Path.of("/run/secrets/tally.keys"));
    assertThat(c.store().kind()).isEqualTo(StoreConfig.Kind.POSTGRES);

    GateOptions g = dev.tally.core.runtime.TallyRuntime.gateOptions(c, "replica-1");
    assertThat(g.owner()).isEqualTo("replica-1");
    assertThat(g.lease()).isEqualTo(Duration.ofMinutes(1));
    assertThat(g.heartbeat()).isEqualTo(Duration.ofSeconds(15));
    assertThat(g.idempotencyArgument()).isEqualTo("requestKey");
    assertThat(g.idempotencyHeader()).isEqualTo("X-Request-Key");
    assertThat(g.intentScopeHeader()).isEqualTo("X-Run-Id");
  }

  @Test
  void reportsEveryProblemAtOnceWithPathValueAndExpectation() {
    assertThat(
            problems(
                """
                version: 2
                tools:
                  create_ticket:
                    class: keyed
                    attachWindow: -5m
                limits:
                  maxJsonDepth: 0
                  maxRequestBytes: 12
                lease: {heartbeat: 45s}
                store: s3://bucket
                """))
        .containsExactly(
            "version: 2 (expected: 1, the only format version)",
            "tools.create_ticket.attachWindow: -5m (expected: a positive duration like 30s, 10m,"
                + " 24h)",
            "limits.maxRequestBytes: 12 (expected: a size from 1KiB to 1GiB, in bytes or like"
                + " 512KiB, 4MiB)",
            "limits.maxJsonDepth: 0 (expected: an integer from 1 to 1000)",
            "lease.heartbeat: 45s (expected: shorter than lease.duration 30s)",
            "store: s3://bucket (expected: memory, journal:DIR or postgres://HOST/DB)");
  }

  @Test
  void unknownKeysAreErrorsListingTheAllowedOnes() {
    assertThat(problems("limits: {maxJsonDeph: 10}\ntool: {}\n"))
        .containsExactly(
            "tool: unknown key (did you mean tools?) (expected one of: version, tools, actor,"
                + " idempotency, intentScope, limits, lease, hmac, store, journal, memory, audit,"
                + " writes, confirmation, sidecar, admin, filter, stream, upstream)",
            "limits.maxJsonDeph: unknown key (did you mean maxJsonDepth?) (expected one of:"
                + " maxRequestBytes, maxJsonDepth, maxResultBytes)");
  }

  @Test
  void adapterSectionsAreKeptRawAndCopiedOnRead() {
    TallyConfig c =
        TallyConfig.parse(
            """
            sidecar: {port: 8080, anything: [1, 2], nested: {deep: true}}
            upstream: {url: http://localhost:3000/mcp, token: s3cr3t}
            """,
            Map.of());
    assertThat(c.adapters().names()).containsExactlyInAnyOrder("sidecar", "upstream");
    assertThat(c.adapters().get("sidecar").get("anything").size()).isEqualTo(2);
    ((com.fasterxml.jackson.databind.node.ObjectNode) c.adapters().get("sidecar")).put("port", 1);
    assertThat(c.adapters().get("sidecar").get("port").asInt()).isEqualTo(8080);
    assertThat(c.adapters().get("filter").isMissingNode()).isTrue();
    assertThat(c.toString()).doesNotContain("s3cr3t");
  }

  @Test
  void anAdapterSectionMustBeAMapping() {
    assertThat(problems("sidecar: 8080\n"))
        .containsExactly("sidecar: 8080 (expected: a mapping of keys to values)");
  }

  @Test
  void adapterSectionsValidateWithTheSharedMessagesAndTheirOwnEnvironment() {
    TallyConfig c = TallyConfig.parse("sidecar: {port: 8080, bogus: 1}\n", Map.of());
    ConfigOverrides env = ConfigOverrides.ofEnv(Map.of("TALLY_SIDECAR_PORT", "99999"));
    ConfigSection s = c.adapters().section("sidecar", env, List.of("port"));
    s.allowKeys("port");
    s.integer("port", 0, 0, 65535);
    assertThat(s.problems())
        .containsExactly(
            "sidecar.bogus: unknown key (expected one of: port)",
            "sidecar.port (from env TALLY_SIDECAR_PORT): 99999 (expected: an integer from 0 to"
                + " 65535)");
  }

  @Test
  void yamlSyntaxErrorsNameLineAndColumnWithoutTheText() {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                TallyConfig.parse(
                    "limits:\n  maxJsonDepth: 5\n   password: [hunter2\n",
                    "config file t.yaml",
                    ConfigOverrides.none()));
    assertThat(e.problems()).hasSize(1);
    assertThat(e.problems().get(0)).startsWith("invalid YAML at line 3, column ");
    assertThat(e.getMessage()).startsWith("invalid config file t.yaml: ");
    assertThat(e.getMessage()).doesNotContain("hunter2", "Exception", "snakeyaml");
    assertThat(e.getCause()).isNull();
    assertThat(e.getStackTrace()).isEmpty();
  }

  @Test
  void duplicateKeysAreRejected() {
    List<String> p = problems("limits:\n  maxJsonDepth: 5\n  maxJsonDepth: 6\n");
    assertThat(p).hasSize(1);
    assertThat(p.get(0)).startsWith("invalid YAML at line 3").contains("maxJsonDepth");
  }

  @Test
  void aDocumentThatIsNotAMappingIsRejected() {
    assertThat(problems("- a\n- b\n"))
        .containsExactly("the document is a list (expected: a mapping)");
  }

  @Test
  void storePasswordsAreRedactedInMessagesAndToString() {
    assertThat(problems("store: postgres://\n"))
        .containsExactly("store: postgres:// (expected: a postgres:// URL with a host)");
    assertThat(problems("store: mysql://u:hunter2@db/x\n"))
        .containsExactly(
            "store: mysql://u:<redacted>@db/x (expected: memory, journal:DIR or"
                + " postgres://HOST/DB)");
    TallyConfig c =
        TallyConfig.parse("store: postgresql://u:hunter2@db/x?sslpassword=pw2&a=b\n", Map.of());
    assertThat(c.store().uri()).contains("hunter2");
    assertThat(c.store().redacted())
        .isEqualTo("postgresql://u:<redacted>@db/x?sslpassword=<redacted>&a=b");
    assertThat(c.toString()).doesNotContain("hunter2", "pw2");
    assertThat(new StoreConfig("postgres://u:p@ss/w0rd@db:5432/x").redacted())
        .isEqualTo("postgres://u:<redacted>@db:5432/x");
    assertThat(new StoreConfig("postgres://db:5432/x").redacted())
        .isEqualTo("postgres://db:5432/x");
  }

  @Test
  void storeKinds() {
    assertThat(TallyConfig.parse("store: memory", Map.of()).store().kind())
        .isEqualTo(StoreConfig.Kind.MEMORY);
    StoreConfig j = TallyConfig.parse("store: journal:/var/lib/tally", Map.of()).store();
    assertThat(j.journalDir()).isEqualTo(Path.of("/var/lib/tally"));
    assertThat(j.generatedKeyFile()).isEqualTo(Path.of("/var/lib/tally/hmac.keys"));
    assertThat(problems("store: 'journal:'"))
        .containsExactly("store: journal: (expected: journal:DIR with a directory)");
    assertThat(new StoreConfig("memory").generatedKeyFile()).isEqualTo(Path.of(".tally/hmac.keys"));
  }

  @Test
  void environmentOverridesTheFileAndFlagsOverrideTheEnvironment() {
    String yaml = "limits: {maxJsonDepth: 10, maxResultBytes: 1KiB}\nstore: memory\n";
    Map<String, String> env =
        Map.of(
            "TALLY_LIMITS_MAX_JSON_DEPTH", "20",
            "TALLY_HMAC_KEY_FILE", "/env/keys",
            "TALLY_TOOLS_DEFAULT_ATTACH_WINDOW", "1h",
            "TALLY_INTENT_SCOPE_HEADER", "X-Run",
            "PATH", "/usr/bin");
    TallyConfig fileOnly = TallyConfig.parse(yaml, Map.of());
    TallyConfig withEnv = TallyConfig.parse(yaml, env);
    TallyConfig withFlag =
        TallyConfig.parse(
            yaml,
            "configuration",
            ConfigOverrides.ofEnv(env).withFlag("limits.maxJsonDepth", "30"));

    assertThat(fileOnly.limits().maxJsonDepth()).isEqualTo(10);
    assertThat(withEnv.limits().maxJsonDepth()).isEqualTo(20);
    assertThat(withFlag.limits().maxJsonDepth()).isEqualTo(30);
    assertThat(withEnv.limits().maxResultBytes()).isEqualTo(1024);
    assertThat(withEnv.hmac().keyFile()).isEqualTo(Path.of("/env/keys"));
    assertThat(withEnv.intentScope().header()).isEqualTo("X-Run");
    assertThat(withEnv.tools().defaults().attachWindow()).isEqualTo(Duration.ofHours(1));
    assertThat(withEnv.store().kind()).isEqualTo(StoreConfig.Kind.MEMORY);
  }

  @Test
  void emptyEnvironmentVariablesCountAsUnset() {
    TallyConfig c =
        TallyConfig.parse(
            "limits: {maxJsonDepth: 10}\n", Map.of("TALLY_LIMITS_MAX_JSON_DEPTH", ""));
    assertThat(c.limits().maxJsonDepth()).isEqualTo(10);
  }

  @Test
  void overriddenValuesAreValidatedAndSayWhereTheyCameFrom() {
    ConfigOverrides o =
        ConfigOverrides.ofEnv(
                Map.of("TALLY_LIMITS_MAX_JSON_DEPTH", "deep", "TALLY_LEASE_DURATION", "forever"))
            .withFlag("store", "ftp://x");
    assertThat(problems("", o))
        .containsExactly(
            "limits.maxJsonDepth (from env TALLY_LIMITS_MAX_JSON_DEPTH): deep (expected: an"
                + " integer from 1 to 1000)",
            "lease.duration (from env TALLY_LEASE_DURATION): forever (expected: a positive"
                + " duration like 30s, 10m, 24h)",
            "store (from flag store): ftp://x (expected: memory, journal:DIR or"
                + " postgres://HOST/DB)");
  }

  @Test
  void misspelledCoreEnvironmentVariablesAreErrors() {
    List<String> p =
        problems(
            "",
            ConfigOverrides.ofEnv(
                Map.of(
                    "TALLY_LIMITS_MAX_DEPTH", "5",
                    "TALLY_TOOLS_CREATE_TICKET_CLASS", "keyed",
                    "TALLY_SIDECAR_PORT", "8080",
                    "TALLY_CONFIG", "/etc/tally.yaml")));
    assertThat(p).hasSize(2);
    assertThat(p.get(0))
        .startsWith("env TALLY_LIMITS_MAX_DEPTH: unknown variable for a core key (expected one of:")
        .contains("TALLY_LIMITS_MAX_JSON_DEPTH")
        .doesNotContain("5)");
    assertThat(p.get(1)).startsWith("env TALLY_TOOLS_CREATE_TICKET_CLASS: unknown variable");
  }

  @Test
  void flagsCanTargetAdapterSections() {
    TallyConfig c =
        TallyConfig.parse(
            "sidecar: {port: 1}\n",
            "configuration",
            ConfigOverrides.none().withFlag("sidecar.port", "8081"));
    assertThat(c.adapters().get("sidecar").get("port").asText()).isEqualTo("8081");
  }

  @Test
  void anUnknownFlagPathIsAnUnknownKey() {
    assertThat(problems("", ConfigOverrides.none().withFlag("limits.maxDepth", "3")))
        .containsExactly(
            "limits.maxDepth (from flag limits.maxDepth): unknown key (expected one of:"
                + " maxRequestBytes, maxJsonDepth,"
                + " maxResultBytes)");
    assertThat(problems("", ConfigOverrides.none().withFlag("limits..x", "3")))
        .containsExactly("flag limits..x: limits..x is not a key path (expected: like a.b.c)");
  }

  @Test
  void overridesNeverShowTheEnvironmentInToString() {
    ConfigOverrides o = ConfigOverrides.ofEnv(Map.of("AWS_SECRET", "hunter2"));
    assertThat(o.toString()).doesNotContain("hunter2", "AWS_SECRET");
  }

  @Test
  void loadsAFileAndNamesItInErrors(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("tally.yaml");
    Files.writeString(file, "limits: {maxJsonDepth: 12}\n");
    assertThat(TallyConfig.load(file, Map.of()).limits().maxJsonDepth()).isEqualTo(12);

    Files.writeString(file, "limits: {maxJsonDepth: x}\n");
    assertThat(catchThrowableOfType(ConfigException.class, () -> TallyConfig.load(file, Map.of())))
        .hasMessage(
            "invalid config file "
                + file
                + ": limits.maxJsonDepth: x (expected: an integer from 1 to 1000)");

    Path missing = dir.resolve("nope.yaml");
    assertThat(
            catchThrowableOfType(ConfigException.class, () -> TallyConfig.load(missing, Map.of())))
        .hasMessage("invalid config file " + missing + ": not found");

    Files.write(file, new byte[] {'a', ':', ' ', (byte) 0xff, '\n'});
    assertThat(catchThrowableOfType(ConfigException.class, () -> TallyConfig.load(file, Map.of())))
        .hasMessageEndingWith(": not UTF-8 text");
  }

  @Test
  void loadWithoutAFileUsesDefaultsAndOverrides() {
    TallyConfig c = TallyConfig.load(null, Map.of("TALLY_STORE", "memory"));
    assertThat(c.store().kind()).isEqualTo(StoreConfig.Kind.MEMORY);
  }

  @Test
  void hmacKeyFileMustBeAPath() {
    assertThat(problems("hmac: {keyFile: ''}\n"))
        .containsExactly("hmac.keyFile: \"\" (expected: a file path)");
    assertThat(problems("hmac: {keyFile: \"a\\0b\"}\n"))
        .containsExactly("hmac.keyFile: a?b (expected: a file path)");
  }

  @Test
  void idempotencyAndIntentScopeHeadersMustBeHeaderNamesAndDiffer() {
    assertThat(
            problems(
                "idempotency: {header: 'Bad Header', argument: ''}\n"
                    + "intentScope: {header: Idempotency-Key}\n"))
        .containsExactly(
            "idempotency.argument: \"\" (expected: an argument name of 1-128 characters)",
            "idempotency.header: Bad Header (expected: an HTTP header name like"
                + " X-Forwarded-User)",
            "intentScope.header: Idempotency-Key (expected: a header other than"
                + " idempotency.header)");
  }

  @Test
  void leaseDurationShorterThanDefaultHeartbeatIsReportedOnDuration() {
    assertThat(problems("lease: {duration: 5s}\n"))
        .containsExactly("lease.duration: 5s (expected: longer than lease.heartbeat 10s)");
  }

  @Test
  void theWholeConfigurationPrintsWithoutSecrets() {
    TallyConfig c =
        TallyConfig.parse(
            "store: postgres://u:hunter2@db/x\nupstream: {token: abc123}\n", Map.of());
    assertThat(c.toString()).doesNotContain("hunter2", "abc123");
  }

  @Test
  void fileSizeIsCapped(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("big.yaml");
    Files.write(
        file, ("#" + "x".repeat(TallyConfig.MAX_FILE_BYTES)).getBytes(StandardCharsets.UTF_8));
    assertThat(catchThrowableOfType(ConfigException.class, () -> TallyConfig.load(file, Map.of())))
        .hasMessageContaining("larger than");
  }
}
