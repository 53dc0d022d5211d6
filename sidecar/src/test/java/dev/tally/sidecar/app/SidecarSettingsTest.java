package dev.tally.sidecar.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.config.ConfigException;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SidecarSettingsTest {
  private static SidecarSettings settings(String yaml, ConfigOverrides o) {
    return SidecarSettings.from(TallyConfig.parse(yaml, "test", o), o);
  }

  @Test
  void defaultsNeedOnlyTheUpstream() {
    SidecarSettings s =
        settings("upstream:\n  url: http://127.0.0.1:3000/mcp\n", ConfigOverrides.none());
    assertThat(s.sidecar().host()).isEqualTo("127.0.0.1");
    assertThat(s.sidecar().port()).isEqualTo(8080);
    assertThat(s.sidecar().path()).isEqualTo("/mcp");
    assertThat(s.admin().listen()).isEqualTo(new HostPort("127.0.0.1", 9090));
    assertThat(s.drainTimeout()).isEqualTo(SidecarSettings.DEFAULT_DRAIN_TIMEOUT);
  }

  @Test
  void clientLimitsComeFromTheFileAndTheEnvironmentAndDefaultSafely() {
    SidecarSettings d =
        settings("upstream:\n  url: http://127.0.0.1:3000/mcp\n", ConfigOverrides.none());
    assertThat(d.sidecar().clients()).isEqualTo(dev.tally.sidecar.ClientLimits.DEFAULT);
    assertThat(d.sidecar().clients().h2c()).isFalse();
    assertThat(d.sidecar().clients().effectiveMaxBufferedBytes())
        .isLessThanOrEqualTo(Runtime.getRuntime().maxMemory() / 4 + (1 << 20));
    SidecarSettings s =
        settings(
            "upstream:\n  url: http://127.0.0.1:3000/mcp\nsidecar:\n  maxConnections: 50\n"
                + "  maxConnectionsPerClient: 5\n  headerTimeout: 2s\n  h2c: true\n"
                + "  maxBufferedRequestBytes: 8MiB\nstream:\n  maxTotalBytes: 32MiB\n",
            ConfigOverrides.ofEnv(Map.of("TALLY_SIDECAR_IDLE_TIMEOUT", "7s")));
    var c = s.sidecar().clients();
    assertThat(c.maxConnections()).isEqualTo(50);
    assertThat(c.maxConnectionsPerClient()).isEqualTo(5);
    assertThat(c.headerTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(c.idleTimeout()).isEqualTo(Duration.ofSeconds(7));
    assertThat(c.h2c()).isTrue();
    assertThat(c.effectiveMaxBufferedBytes()).isEqualTo(8L << 20);
    assertThat(s.sidecar().effectiveStreamMaxTotalBytes()).isEqualTo(32L << 20);
    assertThat(
            settings(
                    "upstream:\n  url: http://127.0.0.1:3000/mcp\nsidecar:\n  maxConnections: 100\n",
                    ConfigOverrides.none())
                .sidecar()
                .clients()
                .maxConnectionsPerClient())
        .as("follows a smaller global cap when unset")
        .isEqualTo(100);
    assertThatThrownBy(
            () ->
                settings(
                    "upstream:\n  url: http://127.0.0.1:3000/mcp\nsidecar:\n  maxConnections: 4\n"
                        + "  maxConnectionsPerClient: 5\n  headerTimeout: 0s\n",
                    ConfigOverrides.none()))
        .isInstanceOf(ConfigException.class)
        .satisfies(
            e ->
                assertThat(((ConfigException) e).problems())
                    .anySatisfy(
                        p ->
                            assertThat(p)
                                .startsWith("sidecar.maxConnectionsPerClient: 5")
                                .contains("at most sidecar.maxConnections, 4"))
                    .anySatisfy(p -> assertThat(p).startsWith("sidecar.headerTimeout")));
  }

  @Test
  void aClientCertificateSourceIsRefusedBecauseTheSidecarDoesNotTerminateTls() {
    assertThatThrownBy(
            () ->
                settings(
                    "upstream:\n  url: http://127.0.0.1:3000/mcp\n"
                        + "actor:\n  sources: [{type: client_cert}, {type: token_hash}]\n",
                    ConfigOverrides.none()))
        .isInstanceOf(ConfigException.class)
        .satisfies(
            e ->
                assertThat(((ConfigException) e).problems())
                    .anySatisfy(
                        p ->
                            assertThat(p)
                                .startsWith("actor.sources: client_cert is not available")
                                .contains("does not terminate TLS")));
  }

  @Test
  void aPostgresStoreWithoutASharedKeyFileIsRefusedNamingTheKey() {
    assertThatThrownBy(
            () ->
                settings(
                    "upstream:\n  url: http://127.0.0.1:3000/mcp\nstore: postgres://t@db/x\n",
                    ConfigOverrides.none()))
        .isInstanceOf(ConfigException.class)
        .satisfies(
            e ->
                assertThat(((ConfigException) e).problems())
                    .anySatisfy(p -> assertThat(p).startsWith("hmac.keyFile: missing")));
  }

  @Test
  void aJsonDepthTooShallowForMcpIsReportedNotThrown() {
    assertThatThrownBy(
            () ->
                settings(
                    "upstream:\n  url: http://127.0.0.1:3000/mcp\nlimits:\n  maxJsonDepth: 4\n",
                    ConfigOverrides.none()))
        .isInstanceOf(ConfigException.class)
        .satisfies(
            e ->
                assertThat(((ConfigException) e).problems())
                    .anySatisfy(
                        p ->
                            assertThat(p)
                                .startsWith("sidecar.maxJsonDepth")
                                .contains("at least 8")));
  }

  /** Every proxying key of the file reaches the options the proxy runs with. */
  @Test
  void everyProxyingKeyReachesTheSidecarOptions() {
    String yaml =
        String.join(
            "\n",
            "upstream:",
            "  url: http://127.0.0.1:3000/mcp",
            "  timeout: 45s",
            "  connectTimeout: 3s",
            "  maxConnections: 17",
            "  maxResponseBytes: 2MiB",
            "sidecar:",
            "  path: /agents/mcp",
            "  allowedOrigins: [https://app.example.com]",
            "  allowLoopbackOrigins: false",
            "  allowedHosts: [mcp.example.com, 10.0.0.7]",
            "  maxBatchSize: 8",
            "limits:",
            "  maxRequestBytes: 64KiB",
            "stream:",
            "  maxEvents: 77",
            "  maxBytes: 128KiB",
            "  maxAge: 90s",
            "  priming: false",
            "");
    var o = settings(yaml, ConfigOverrides.none()).sidecar();
    assertThat(o.upstreamTimeout()).isEqualTo(Duration.ofSeconds(45));
    assertThat(o.upstreamConnectTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(o.upstreamMaxConnections()).isEqualTo(17);
    assertThat(o.maxResponseBytes()).isEqualTo(2 << 20);
    assertThat(o.path()).isEqualTo("/agents/mcp");
    assertThat(o.allowedOrigins()).containsExactly("https://app.example.com");
    assertThat(o.allowLoopbackOrigins()).isFalse();
    assertThat(o.allowedHosts()).containsExactly("mcp.example.com", "10.0.0.7");
    assertThat(o.maxBatchSize()).isEqualTo(8);
    assertThat(o.maxRequestBytes()).isEqualTo(64 << 10);
    assertThat(o.streamMaxEvents()).isEqualTo(77);
    assertThat(o.streamMaxBytes()).isEqualTo(128L << 10);
    assertThat(o.streamMaxAge()).isEqualTo(Duration.ofSeconds(90));
    assertThat(o.primingEvents()).isFalse();
  }

  @Test
  void flagsBeatEnvironmentWhichBeatsTheFile() {
    String yaml =
        "upstream:\n  url: http://127.0.0.1:3000/mcp\nsidecar:\n  listen: 127.0.0.1:7000\n  drainTimeout: 5s\n";
    ConfigOverrides env = ConfigOverrides.ofEnv(Map.of("TALLY_SIDECAR_LISTEN", "127.0.0.1:7001"));
    assertThat(settings(yaml, env).sidecar().port()).isEqualTo(7001);
    assertThat(settings(yaml, env).drainTimeout()).isEqualTo(Duration.ofSeconds(5));
    ConfigOverrides flag = env.withFlag("sidecar.listen", "127.0.0.1:7002");
    assertThat(settings(yaml, flag).sidecar().port()).isEqualTo(7002);
  }

  @Test
  void allowedHostsReachTheAdminPortAndBadNamesAreNamedByKey() {
    String yaml =
        "upstream:\n  url: http://127.0.0.1:3000/mcp\nsidecar:\n  allowedHosts: [mcp.example.com]\n";
    assertThat(settings(yaml, ConfigOverrides.none()).admin().allowedHosts())
        .containsExactly("mcp.example.com");
    ConfigOverrides env =
        ConfigOverrides.ofEnv(Map.of("TALLY_SIDECAR_ALLOWED_HOSTS", "mcp.internal"));
    assertThat(
            settings("upstream:\n  url: http://127.0.0.1:3000/mcp\n", env).sidecar().allowedHosts())
        .containsExactly("mcp.internal");
    assertThatThrownBy(
            () ->
                settings(
                    "upstream:\n  url: http://127.0.0.1:3000/mcp\nsidecar:\n  allowedHosts: [\"https://x.example\", \"x.example:8080\"]\n",
                    ConfigOverrides.none()))
        .isInstanceOf(ConfigException.class)
        .satisfies(
            e ->
                assertThat(String.join("\n", ((ConfigException) e).problems()))
                    .contains("sidecar.allowedHosts")
                    .contains("no scheme, path or port"));
  }

  @Test
  void everyProblemIsNamedByKeyAndReportedAtOnce() {
    String yaml =
        "sidecar:\n  listen: nowhere\n  lisen: 1\nstream:\n  maxAge: -5m\nadmin:\n  listen: 0.0.0.0:9090\n";
    assertThatThrownBy(() -> settings(yaml, ConfigOverrides.none()))
        .isInstanceOf(ConfigException.class)
        .satisfies(
            e -> {
              String all = String.join("\n", ((ConfigException) e).problems());
              assertThat(all)
                  .contains("upstream.url")
                  .contains("sidecar.listen: nowhere")
                  .contains("HOST:PORT")
                  .contains("sidecar.lisen")
                  .contains("stream.maxAge")
                  .contains("admin.tokenFile");
            });
  }

  @Test
  void cancellationAndListingKeysHaveTheirDefaultsAndReachTheOptions(@TempDir Path dir)
      throws Exception {
    SidecarSettings defaults =
        settings("upstream:\n  url: http://127.0.0.1:3000/mcp\n", ConfigOverrides.none());
    assertThat(defaults.sidecar().upstreamCancelGrace()).isEqualTo(Duration.ofSeconds(5));
    assertThat(defaults.sidecar().listTools()).as("tally serve lists by default").isTrue();
    assertThat(defaults.sidecar().listToolsHeaders()).isEmpty();

    Path headers = dir.resolve("listing.headers");
    Files.writeString(
        headers, "# a service credential\n\nAuthorization: Bearer svc-token-value\nX-Tenant: t1\n");
    SidecarSettings s =
        settings(
            "upstream:\n  url: http://127.0.0.1:3000/mcp\n  cancelGrace: 0s\n  listTools: false\n"
                + "  listToolsHeaderFile: "
                + headers
                + "\n",
            ConfigOverrides.none());
    assertThat(s.sidecar().upstreamCancelGrace()).isZero();
    assertThat(s.sidecar().listTools()).isFalse();
    assertThat(s.sidecar().listToolsHeaders())
        .containsExactly(
            Map.entry("Authorization", "Bearer svc-token-value"), Map.entry("X-Tenant", "t1"));
    assertThat(s.sidecar().toString()).doesNotContain("svc-token-value");
  }

  @Test
  void aBadListingHeaderFileIsNamedByFileAndLineWithoutEchoingAValue(@TempDir Path dir)
      throws Exception {
    Path headers = dir.resolve("listing.headers");
    Files.writeString(
        headers,
        "Authorization: Bearer secret-value-1\nno colon secret-value-2\nMcp-Session-Id: s\n"
            + "X-Empty:\n");
    assertThatThrownBy(
            () ->
                settings(
                    "upstream:\n  url: http://127.0.0.1:3000/mcp\n  listToolsHeaderFile: "
                        + headers
                        + "\n  cancelGrace: -1s\n",
                    ConfigOverrides.none()))
        .isInstanceOf(ConfigException.class)
        .satisfies(
            e -> {
              String all = String.join("\n", ((ConfigException) e).problems());
              assertThat(all)
                  .contains("upstream.listToolsHeaderFile: " + headers + ", line 2: no header name")
                  .contains("line 3: header Mcp-Session-Id is set by the sidecar")
                  .contains("line 4: the value of X-Empty is empty")
                  .contains("upstream.cancelGrace")
                  .doesNotContain("secret-value");
            });
    assertThatThrownBy(
            () ->
                settings(
                    "upstream:\n  url: http://127.0.0.1:3000/mcp\n  listToolsHeaderFile: "
                        + dir.resolve("missing")
                        + "\n",
                    ConfigOverrides.none()))
        .hasMessageContaining("upstream.listToolsHeaderFile")
        .hasMessageContaining("cannot be read");
  }

  @Test
  void maxBatchSizeDefaultsTo64AndIsValidatedByKey() {
    String url = "upstream:\n  url: http://127.0.0.1:3000/mcp\n";
    assertThat(settings(url, ConfigOverrides.none()).sidecar().maxBatchSize()).isEqualTo(64);
    ConfigOverrides env = ConfigOverrides.ofEnv(Map.of("TALLY_SIDECAR_MAX_BATCH_SIZE", "8"));
    assertThat(settings(url, env).sidecar().maxBatchSize()).isEqualTo(8);
    assertThatThrownBy(
            () -> settings(url + "sidecar:\n  maxBatchSize: 0\n", ConfigOverrides.none()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sidecar.maxBatchSize: 0")
        .hasMessageContaining("1 to 1024");
  }

  /**
   * A credential in the upstream URL would be copied into the start log, every audit entry's target
   * and the journal: userinfo is refused at start, in every form, never echoed.
   */
  @Test
  void anUpstreamUrlWithUserinfoIsRefusedWithoutEchoingTheCredential() {
    String marker = "Mk7-upstream-password";
    for (String url :
        List.of(
            "http://alice:" + marker + "@127.0.0.1:3000/mcp",
            "http://" + marker + "@127.0.0.1:3000/mcp",
            "http://alice:" + marker + "/x@127.0.0.1:3000/mcp",
            "http://alice:pa ss" + marker + "@127.0.0.1:3000/mcp")) {
      for (ConfigOverrides o :
          List.of(
              ConfigOverrides.none().withFlag("upstream.url", url),
              ConfigOverrides.ofEnv(Map.of("TALLY_UPSTREAM_URL", url)))) {
        assertThatThrownBy(() -> settings("version: 1\n", o))
            .as(url)
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining("upstream.url")
            .satisfies(
                e -> assertThat(e.getMessage()).doesNotContain(marker).doesNotContain("alice"));
      }
    }
    assertThatThrownBy(
            () ->
                settings(
                    "upstream:\n  url: http://alice:" + marker + "@127.0.0.1:3000/mcp\n",
                    ConfigOverrides.none()))
        .hasMessageContaining("upstream.url: http://<redacted>@127.0.0.1:3000/mcp (expected:")
        .hasMessageContaining("Authorization header")
        .hasMessageContaining("Secret");
  }

  @Test
  void aCredentialInTheUpstreamQueryIsKeptForTheUpstreamButNeverShown() {
    String marker = "Mk7-query-token";
    SidecarSettings s =
        settings(
            "upstream:\n  url: http://127.0.0.1:3000/mcp?tenant=a&token=" + marker + "\n",
            ConfigOverrides.none());
    assertThat(s.sidecar().upstream().getRawQuery()).contains(marker);
    assertThat(s.sidecar().upstreamTarget())
        .isEqualTo("http://127.0.0.1:3000/mcp?tenant=a&token=<redacted>");
    assertThat(s.toString()).doesNotContain(marker);
    assertThatThrownBy(
            () ->
                settings(
                    "upstream:\n  url: ftp://127.0.0.1/mcp?token=" + marker + "\n",
                    ConfigOverrides.none()))
        .hasMessageContaining("upstream.url: ftp://127.0.0.1/mcp?token=<redacted>")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(marker));
  }

  @Test
  void upstreamMustBeHttp() {
    assertThatThrownBy(() -> settings("upstream:\n  url: ftp://x/mcp\n", ConfigOverrides.none()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("upstream.url");
  }

  @Test
  void adminBeyondLoopbackWithATokenIsAccepted() {
    String token = "0123456789abcdef0123456789abcdef";
    ConfigOverrides o = ConfigOverrides.ofEnv(Map.of("TALLY_ADMIN_TOKEN", token));
    SidecarSettings s =
        settings(
            "upstream:\n  url: http://127.0.0.1:3000/mcp\nadmin:\n  listen: 0.0.0.0:9090\n", o);
    assertThat(s.admin().token()).isEqualTo(token);
    assertThat(s.admin().toString()).doesNotContain(token);
  }

  /**
   * A short token can be guessed over the port: both sources are refused below 32 characters, the
   * problem naming the source and the length, never the token.
   */
  @Test
  void anAdminTokenShorterThan32CharactersIsRefusedFromEitherSourceWithoutEchoingIt(
      @TempDir Path dir) throws Exception {
    String url = "upstream:\n  url: http://127.0.0.1:3000/mcp\n";
    String shortToken = "s3cr3t-0123456789abcdef-0123456"; // 31 characters
    assertThatThrownBy(
            () -> settings(url, ConfigOverrides.ofEnv(Map.of("TALLY_ADMIN_TOKEN", "abc"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("admin.tokenFile: env TALLY_ADMIN_TOKEN: the token is 3 characters")
        .hasMessageContaining("at least 32")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("abc"));
    Path file = dir.resolve("admin.token");
    Files.writeString(file, shortToken + "\n");
    assertThatThrownBy(
            () ->
                settings(
                    url + "admin:\n  listen: 0.0.0.0:9090\n  tokenFile: " + file + "\n",
                    ConfigOverrides.none()))
        .isInstanceOf(ConfigException.class)
        .satisfies(
            e -> {
              List<String> problems = ((ConfigException) e).problems();
              assertThat(problems)
                  .as("one problem: the short token, not also a missing one")
                  .hasSize(1);
              assertThat(problems.get(0))
                  .startsWith("admin.tokenFile: the token in " + file + " is 31 characters")
                  .contains("at least 32")
                  .doesNotContain(shortToken);
            });
    String spaced = "0123456789abcdef 0123456789abcdef";
    assertThatThrownBy(
            () -> settings(url, ConfigOverrides.ofEnv(Map.of("TALLY_ADMIN_TOKEN", spaced))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("TALLY_ADMIN_TOKEN")
        .hasMessageContaining("position 17")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(spaced));
    Files.writeString(file, shortToken + "X\n");
    assertThat(
            settings(url + "admin:\n  tokenFile: " + file + "\n", ConfigOverrides.none())
                .admin()
                .token())
        .isEqualTo(shortToken + "X");
  }

  @Test
  void hostPortParsesIpv6AndRejectsJunk() {
    assertThat(HostPort.parse("[::1]:80")).isEqualTo(new HostPort("::1", 80));
    assertThat(HostPort.parse("[::1]:80").isLoopback()).isTrue();
    assertThat(HostPort.parse("localhost:0").isLoopback()).isTrue();
    assertThat(HostPort.parse("x")).isNull();
    assertThat(HostPort.parse("x:99999")).isNull();
    assertThat(HostPort.parse(":80")).isNull();
  }
}
