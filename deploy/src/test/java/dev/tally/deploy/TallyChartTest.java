package dev.tally.deploy;

import static dev.tally.deploy.Rendered.named;
import static dev.tally.deploy.Rendered.names;
import static dev.tally.deploy.Rendered.resolvePort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code charts/tally}, rendered by the real Helm (helm-java's in-process library): lint {@code
 * --strict}, then assertions on the parsed manifests for each values combination that changes the
 * pod: the defaults (demo server, journal on a PVC), the journal on an emptyDir with the audit key
 * from a Secret, PostgreSQL with several replicas, the ServiceMonitor, the sub-chart injection.
 */
class TallyChartTest {
  private static final Path CHART = Path.of(System.getProperty("tally.chart", "../charts/tally"));
  private static final Path EXAMPLES = CHART.resolve("examples");
  private static final Path SCHEMA = CHART.resolve("../../config/tally.schema.json");

  @TempDir Path tmp;

  private static TemplateCommand template(Path chart) {
    return new Helm(chart).template().withName("demo").withNamespace("agents");
  }

  private static Rendered render(Map<String, Object> sets, String... valuesFiles) {
    TemplateCommand t = template(CHART);
    for (String f : valuesFiles) {
      t = t.withValuesFile(EXAMPLES.resolve(f));
    }
    for (Map.Entry<String, Object> e : sets.entrySet()) {
      t = t.set(e.getKey(), e.getValue());
    }
    return Rendered.parse(t.call());
  }

  private static String failure(Map<String, Object> sets) {
    TemplateCommand t = template(CHART);
    for (Map.Entry<String, Object> e : sets.entrySet()) {
      t = t.set(e.getKey(), e.getValue());
    }
    TemplateCommand cmd = t;
    Throwable[] thrown = new Throwable[1];
    assertThatThrownBy(cmd::call)
        .as("helm template with " + sets + " must fail")
        .satisfies(e -> thrown[0] = e);
    return String.valueOf(thrown[0].getMessage());
  }

  // ---- lint ------------------------------------------------------------------------------------

  @Test
  void lintStrictPassesForTheChartAndTheExampleChart() throws IOException {
    LintResult chart = new Helm(CHART).lint().strict().call();
    assertThat(chart.isFailed()).as(String.join("\n", chart.getMessages())).isFalse();
    Path parent = tmp.resolve("mcp-server-with-tally");
    copy(EXAMPLES.resolve("mcp-server-with-tally"), parent);
    copy(CHART, parent.resolve("charts/tally"));
    LintResult example = new Helm(parent).lint().strict().call();
    assertThat(example.isFailed()).as(String.join("\n", example.getMessages())).isFalse();
  }

  // ---- the default: demo server + Tally, journal on a PVC --------------------------------------

  @Test
  void theDefaultPodHasBothContainersProbesOnTheAdminPortAndTheSecretsMountedReadOnly() {
    Rendered r = render(Map.of());
    JsonNode pod = r.pod();
    assertThat(names(pod.path("containers"))).containsExactly("mcp-server", "tally");
    JsonNode tally = named(pod.path("containers"), "tally");

    assertThat(tally.path("image").asText()).isEqualTo("tally-sidecar:0.1.0-SNAPSHOT");
    assertThat(tally.path("args").toString())
        .isEqualTo("[\"serve\",\"--config\",\"/etc/tally/config/tally.yaml\"]");
    assertThat(resolvePort(tally, tally.path("ports").get(0).path("containerPort")))
        .isEqualTo(8080);
    int admin = named(tally.path("ports"), "admin").path("containerPort").asInt();
    assertThat(admin).isEqualTo(9090);
    for (String probe : List.of("startupProbe", "readinessProbe", "livenessProbe")) {
      JsonNode get = tally.path(probe).path("httpGet");
      assertThat(resolvePort(tally, get.path("port"))).as(probe).isEqualTo(admin);
    }
    assertThat(tally.path("readinessProbe").path("httpGet").path("path").asText())
        .isEqualTo("/readyz");
    assertThat(tally.path("livenessProbe").path("httpGet").path("path").asText())
        .isEqualTo("/healthz");

    // Secrets: mounted read-only, from the Secrets the README tells the user to create.
    JsonNode mounts = tally.path("volumeMounts");
    JsonNode volumes = pod.path("volumes");
    for (String[] v :
        List.of(
            new String[] {"tally-hmac", "tally-hmac", "hmac.keys"},
            new String[] {"tally-admin-token", "tally-admin", "token"})) {
      assertThat(named(mounts, v[0]).path("readOnly").asBoolean()).as(v[0]).isTrue();
      JsonNode secret = named(volumes, v[0]).path("secret");
      assertThat(secret.path("secretName").asText()).isEqualTo(v[1]);
      assertThat(secret.path("items").get(0).path("key").asText()).isEqualTo(v[2]);
    }
    assertThat(named(mounts, "tally-config").path("readOnly").asBoolean()).isTrue();

    // Non-root, read-only root file system (a writable /tmp), no privilege escalation.
    JsonNode sc = tally.path("securityContext");
    assertThat(sc.path("runAsNonRoot").asBoolean()).isTrue();
    assertThat(sc.path("runAsUser").asInt()).isEqualTo(65532);
    assertThat(sc.path("readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(sc.path("allowPrivilegeEscalation").asBoolean()).isFalse();
    assertThat(sc.path("capabilities").path("drop").toString()).isEqualTo("[\"ALL\"]");
    assertThat(named(mounts, "tally-tmp").path("mountPath").asText()).isEqualTo("/tmp");
    assertThat(pod.path("securityContext").path("fsGroup").asInt()).isEqualTo(65532);
    JsonNode server = named(pod.path("containers"), "mcp-server");
    assertThat(server.path("securityContext").path("readOnlyRootFilesystem").asBoolean()).isTrue();

    // preStop on both; the grace period covers Tally's preStop and drain.
    assertThat(tally.path("lifecycle").path("preStop").path("sleep").path("seconds").asInt())
        .isEqualTo(5);
    assertThat(server.path("lifecycle").path("preStop").path("sleep").path("seconds").asInt())
        .isGreaterThanOrEqualTo(20);
    assertThat(pod.path("terminationGracePeriodSeconds").asInt()).isGreaterThanOrEqualTo(5 + 20);

    // The Service routes to Tally's port, never to the server's.
    JsonNode svc = r.find("Service", "demo-tally").orElseThrow();
    JsonNode port = svc.path("spec").path("ports").get(0);
    assertThat(resolvePort(tally, port.path("targetPort"))).isEqualTo(8080);
    assertThat(port.path("targetPort").asInt()).isNotEqualTo(3000);
    assertThat(svc.path("spec").path("selector"))
        .isEqualTo(r.one("Deployment").path("spec").path("selector").path("matchLabels"));

    // The journal on a PVC, kept on uninstall; one pod at a time.
    JsonNode pvc = r.one("PersistentVolumeClaim");
    assertThat(
            named(volumes, "tally-data").path("persistentVolumeClaim").path("claimName").asText())
        .isEqualTo(pvc.path("metadata").path("name").asText());
    assertThat(pvc.path("metadata").path("annotations").path("helm.sh/resource-policy").asText())
        .isEqualTo("keep");
    assertThat(r.one("Deployment").path("spec").path("strategy").path("type").asText())
        .isEqualTo("Recreate");
    assertThat(named(mounts, "tally-data").path("mountPath").asText()).isEqualTo("/var/lib/tally");
    assertThat(pod.path("initContainers").isMissingNode()).isTrue();

    assertThat(r.all("ServiceMonitor")).isEmpty();
    assertThat(r.all("PodDisruptionBudget")).isEmpty();
  }

  @Test
  void theRenderedConfigPointsAtTheMountsAndPassesTheSchema() throws IOException {
    Rendered r = render(Map.of());
    JsonNode cfg = r.tallyConfig();
    JsonNode tally = named(r.pod().path("containers"), "tally");
    JsonNode mounts = tally.path("volumeMounts");
    assertThat(cfg.path("upstream").path("url").asText()).isEqualTo("http://127.0.0.1:3000/mcp");
    assertThat(cfg.path("sidecar").path("listen").asText()).isEqualTo("0.0.0.0:8080");
    // Beyond loopback for the kubelet's probes, so with a token file.
    assertThat(cfg.path("admin").path("listen").asText()).isEqualTo("0.0.0.0:9090");
    assertThat(cfg.path("admin").path("tokenFile").asText())
        .isEqualTo(named(mounts, "tally-admin-token").path("mountPath").asText() + "/token");
    assertThat(cfg.path("hmac").path("keyFile").asText())
        .isEqualTo(named(mounts, "tally-hmac").path("mountPath").asText() + "/hmac.keys");
    assertThat(cfg.path("store").asText()).isEqualTo("journal:/var/lib/tally/journal");
    assertThat(cfg.path("tools").path("create_ticket").path("class").asText()).isEqualTo("keyed");
    assertThat(schemaProblems(r.configText())).isEmpty();

    Rendered pg = render(Map.of(), "values-postgres.yaml");
    assertThat(schemaProblems(pg.configText())).isEmpty();
    assertThat(pg.tallyConfig().has("store")).as("the store URL comes from a Secret").isFalse();
  }

  @Test
  void tallyConfigCheckAcceptsTheRenderedConfigWithTheSecretsWhereTheyAreMounted()
      throws IOException {
    for (String values : List.of("", "values-emptydir.yaml", "values-postgres.yaml")) {
      Rendered r = values.isEmpty() ? render(Map.of()) : render(Map.of(), values);
      Path root = Files.createDirectories(tmp.resolve("pod" + values.hashCode()));
      Path hmac = root.resolve("etc/tally/hmac/hmac.keys");
      Files.createDirectories(hmac.getParent());
      assertThat(dev.tally.sidecar.cli.TallyCli.run("key", "generate", hmac.toString())).isZero();
      Path token = root.resolve("etc/tally/admin/token");
      Files.createDirectories(token.getParent());
      Files.writeString(token, "an-admin-token-long-enough-for-the-32-character-rule\n");
      Path config = root.resolve("tally.yaml");
      Files.writeString(
          config,
          r.configText()
              .replace("/etc/tally/", root.resolve("etc/tally") + "/")
              .replace("/var/lib/tally/", root.resolve("var/lib/tally") + "/"));
      int code =
          dev.tally.sidecar.cli.TallyCli.run("config", "check", "--no-env", config.toString());
      assertThat(code).as(values + ": " + Files.readString(config)).isZero();
      assertThat(root.resolve("var")).as("config check writes nothing").doesNotExist();
    }
  }

  private static List<String> schemaProblems(String yaml) throws IOException {
    Schema schema =
        SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
            .getSchema(Files.readString(SCHEMA), InputFormat.JSON);
    String json =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .writeValueAsString(Rendered.YAML.readTree(yaml));
    List<String> out = new ArrayList<>();
    schema.validate(json, InputFormat.JSON).forEach(e -> out.add(e.toString()));
    return out;
  }

  // ---- store choices ---------------------------------------------------------------------------

  @Test
  void anEmptyDirJournalNeedsNoClaimAndTheAuditKeyIsInstalledByAnInitContainer() {
    Rendered r = render(Map.of(), "values-emptydir.yaml");
    assertThat(r.all("PersistentVolumeClaim")).isEmpty();
    JsonNode pod = r.pod();
    JsonNode data = named(pod.path("volumes"), "tally-data");
    assertThat(data.has("emptyDir")).isTrue();
    assertThat(data.path("emptyDir").path("sizeLimit").asText()).isEqualTo("512Mi");
    assertThat(r.one("Deployment").path("spec").path("strategy").isMissingNode()).isTrue();

    JsonNode init = pod.path("initContainers");
    assertThat(names(init)).containsExactly("tally-audit-key");
    JsonNode install = init.get(0);
    assertThat(install.path("args").toString())
        .isEqualTo(
            "[\"audit\",\"install-key\",\"/etc/tally/audit-key/audit-signing.key\","
                + "\"/var/lib/tally/audit\"]");
    assertThat(named(install.path("volumeMounts"), "tally-audit-key").path("readOnly").asBoolean())
        .isTrue();
    assertThat(named(install.path("volumeMounts"), "tally-data").path("mountPath").asText())
        .isEqualTo("/var/lib/tally");
    assertThat(install.path("securityContext").path("readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(
            named(pod.path("volumes"), "tally-audit-key")
                .path("secret")
                .path("secretName")
                .asText())
        .isEqualTo("tally-audit");
    // The audit directory the init container fills is the sibling of the journal directory.
    assertThat(r.tallyConfig().path("store").asText()).isEqualTo("journal:/var/lib/tally/journal");
  }

  @Test
  void postgresTakesItsUrlAndPasswordFromSecretKeyRefsAndAllowsSeveralReplicas() {
    Rendered r = render(Map.of(), "values-postgres.yaml");
    JsonNode deployment = r.one("Deployment");
    assertThat(deployment.path("spec").path("replicas").asInt()).isEqualTo(3);
    JsonNode pod = r.pod();
    assertThat(names(pod.path("containers"))).containsExactly("tickets", "tally");
    JsonNode tally = named(pod.path("containers"), "tally");
    JsonNode url = named(tally.path("env"), "TALLY_STORE").path("valueFrom").path("secretKeyRef");
    assertThat(url.path("name").asText()).isEqualTo("tally-postgres");
    assertThat(url.path("key").asText()).isEqualTo("url");
    JsonNode password =
        named(tally.path("env"), "PGPASSWORD").path("valueFrom").path("secretKeyRef");
    assertThat(password.path("name").asText()).isEqualTo("tally-postgres");
    assertThat(password.path("key").asText()).isEqualTo("password");
    assertThat(named(tally.path("env"), "TALLY_STORE").has("value")).isFalse();
    assertThat(names(pod.path("volumes"))).doesNotContain("tally-data");
    assertThat(r.all("PersistentVolumeClaim")).isEmpty();

    JsonNode pdb = r.one("PodDisruptionBudget");
    assertThat(pdb.path("spec").path("minAvailable").asInt()).isEqualTo(2);
    assertThat(pdb.path("spec").path("selector").path("matchLabels"))
        .isEqualTo(deployment.path("spec").path("selector").path("matchLabels"));
  }

  @Test
  void otelValuesBecomeTheStandardVariablesAndTheHeadersComeFromASecret() {
    JsonNode quiet = named(render(Map.of()).pod().path("containers"), "tally");
    assertThat(names(quiet.path("env")))
        .as("export is off by default: no OTEL_* variable at all")
        .noneMatch(n -> n.startsWith("OTEL_"));

    Map<String, Object> sets = new java.util.LinkedHashMap<>();
    sets.put("otel.endpoint", "http://otel-collector.observability:4318");
    sets.put("otel.headersSecret.name", "tally-otlp");
    sets.put("otel.sampler", "parentbased_traceidratio");
    sets.put("otel.samplerArg", "0.1");
    sets.put("otel.resourceAttributes", "deployment.environment.name=prod");
    JsonNode tally = named(render(sets).pod().path("containers"), "tally");
    JsonNode env = tally.path("env");
    assertThat(named(env, "OTEL_EXPORTER_OTLP_ENDPOINT").path("value").asText())
        .isEqualTo("http://otel-collector.observability:4318");
    assertThat(named(env, "OTEL_SERVICE_NAME").path("value").asText())
        .as("the release's full name by default")
        .isEqualTo("demo-tally");
    JsonNode headers = named(env, "OTEL_EXPORTER_OTLP_HEADERS");
    assertThat(headers.has("value")).as("never a literal in the manifest").isFalse();
    assertThat(headers.path("valueFrom").path("secretKeyRef").path("name").asText())
        .isEqualTo("tally-otlp");
    assertThat(headers.path("valueFrom").path("secretKeyRef").path("key").asText())
        .isEqualTo("headers");
    assertThat(named(env, "OTEL_TRACES_SAMPLER").path("value").asText())
        .isEqualTo("parentbased_traceidratio");
    assertThat(named(env, "OTEL_TRACES_SAMPLER_ARG").path("value").asText()).isEqualTo("0.1");
    assertThat(named(env, "OTEL_RESOURCE_ATTRIBUTES").path("value").asText())
        .isEqualTo("deployment.environment.name=prod");

    JsonNode named =
        named(
            render(Map.of("otel.endpoint", "http://c:4318", "otel.serviceName", "tickets-tally"))
                .pod()
                .path("containers"),
            "tally");
    assertThat(named(named.path("env"), "OTEL_SERVICE_NAME").path("value").asText())
        .isEqualTo("tickets-tally");
    assertThat(names(named.path("env"))).doesNotContain("OTEL_EXPORTER_OTLP_HEADERS");
  }

  @Test
  void theServiceMonitorExistsOnlyWhenEnabledAndScrapesTheAdminService() {
    assertThat(render(Map.of()).all("ServiceMonitor")).isEmpty();
    Rendered r = render(Map.of("serviceMonitor.enabled", "true"));
    JsonNode sm = r.one("ServiceMonitor");
    JsonNode endpoint = sm.path("spec").path("endpoints").get(0);
    assertThat(endpoint.path("port").asText()).isEqualTo("admin");
    assertThat(endpoint.path("path").asText()).isEqualTo("/metrics");
    JsonNode adminSvc = r.find("Service", "demo-tally-admin").orElseThrow();
    JsonNode labels = adminSvc.path("metadata").path("labels");
    sm.path("spec")
        .path("selector")
        .path("matchLabels")
        .properties()
        .forEach(e -> assertThat(labels.path(e.getKey())).isEqualTo(e.getValue()));
    JsonNode mcpSvcLabels =
        r.find("Service", "demo-tally").orElseThrow().path("metadata").path("labels");
    assertThat(mcpSvcLabels.has("app.kubernetes.io/part")).as("only the admin Service").isFalse();
    JsonNode adminPort = adminSvc.path("spec").path("ports").get(0);
    assertThat(adminPort.path("name").asText()).isEqualTo("admin");
    assertThat(adminPort.path("targetPort").asInt()).isEqualTo(9090);
  }

  // ---- refused values --------------------------------------------------------------------------

  @Test
  void unsafeValuesAreRefusedNamingTheValue() {
    assertThat(failure(Map.of("deployment.replicas", "2")))
        .contains("deployment.replicas: 2 with store.kind journal");
    assertThat(failure(Map.of("hmac.secret.name", ""))).contains("hmac.secret.name: empty");
    assertThat(failure(Map.of("admin.tokenSecret.name", "")))
        .contains("admin.tokenSecret.name: empty");
    assertThat(failure(Map.of("config.store", "memory")))
        .contains("config.store: set by the chart");
    assertThat(failure(Map.of("config.sidecar.listen", "127.0.0.1:1")))
        .contains("config.sidecar.listen: set by the chart");
    assertThat(failure(Map.of("store.kind", "postgres", "store.postgres.urlSecret.name", "")))
        .contains("store.postgres.urlSecret.name: empty");
    assertThat(failure(Map.of("store.kind", "sqlite"))).contains("store.kind: sqlite");
    assertThat(failure(Map.of("deployment.enabled", "false"))).contains("service.selector: empty");
    assertThat(
            failure(Map.of("store.kind", "memory", "audit.signingKeySecret.name", "tally-audit")))
        .contains("audit.signingKeySecret.name");
  }

  // ---- your own Deployment ---------------------------------------------------------------------

  @Test
  void withoutItsDeploymentTheChartRendersOnlyTallysObjectsForYourPods() {
    Rendered r = render(Map.of("deployment.enabled", "false", "service.selector.app", "tickets"));
    assertThat(r.all("Deployment")).isEmpty();
    assertThat(r.all("ConfigMap")).hasSize(1);
    assertThat(r.find("Service", "demo-tally").orElseThrow().path("spec").path("selector"))
        .isEqualTo(Rendered.YAML.createObjectNode().put("app", "tickets"));
  }

  @Test
  void theExampleChartInjectsTheSidecarIntoItsOwnDeployment() throws IOException {
    Path parent = tmp.resolve("mcp-server-with-tally");
    copy(EXAMPLES.resolve("mcp-server-with-tally"), parent);
    copy(CHART, parent.resolve("charts/tally")); // what helm dependency update provides
    Rendered r = Rendered.parse(template(parent).call());
    JsonNode deployment = r.one("Deployment");
    assertThat(deployment.path("metadata").path("name").asText()).isEqualTo("demo-server");
    JsonNode pod = r.pod();
    assertThat(names(pod.path("containers"))).containsExactly("server", "tally");
    JsonNode tally = named(pod.path("containers"), "tally");
    assertThat(resolvePort(tally, tally.path("readinessProbe").path("httpGet").path("port")))
        .isEqualTo(9090);
    assertThat(names(pod.path("volumes")))
        .contains("tally-config", "tally-hmac", "tally-admin-token", "tally-data", "tally-tmp");
    JsonNode svc = r.find("Service", "demo-tally").orElseThrow();
    assertThat(svc.path("spec").path("selector"))
        .isEqualTo(deployment.path("spec").path("template").path("metadata").path("labels"));
    assertThat(svc.path("spec").path("ports").get(0).path("targetPort").asInt()).isEqualTo(8080);
    assertThat(named(pod.path("volumes"), "tally-config").path("configMap").path("name").asText())
        .isEqualTo(r.one("ConfigMap").path("metadata").path("name").asText());
    assertThat(r.tallyConfig().path("tools").path("search_tickets").path("class").asText())
        .isEqualTo("read_only");
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.toList()) {
        Path rel = from.relativize(p);
        if (rel.startsWith("examples")) {
          continue;
        }
        Path dest = to.resolve(rel.toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(dest);
        } else {
          Files.createDirectories(dest.getParent());
          Files.copy(p, dest);
        }
      }
    }
  }
}
