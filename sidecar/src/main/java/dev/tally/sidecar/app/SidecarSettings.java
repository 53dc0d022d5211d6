package dev.tally.sidecar.app;

import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.ConfigSection;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.config.UrlRedaction;
import dev.tally.sidecar.ClientLimits;
import dev.tally.sidecar.SidecarOptions;
import dev.tally.sidecar.admin.AdminOptions;
import dev.tally.sidecar.internal.http.Hosts;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The sidecar's own configuration sections ({@code upstream:}, {@code sidecar:}, {@code stream:},
 * {@code admin:}), validated with the same messages as the core sections. Immutable.
 *
 * @param sidecar proxy options
 * @param admin admin endpoint options
 * @param drainTimeout how long {@code SIGTERM} lets in-flight executions finish
 */
public record SidecarSettings(SidecarOptions sidecar, AdminOptions admin, Duration drainTimeout) {
  public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(20);
  public static final String ADMIN_TOKEN_ENV = "TALLY_ADMIN_TOKEN";

  static final List<String> UPSTREAM_KEYS =
      List.of(
          "url",
          "timeout",
          "connectTimeout",
          "maxConnections",
          "maxResponseBytes",
          "cancelGrace",
          "listTools",
          "listToolsHeaderFile");
  static final List<String> SIDECAR_KEYS =
      List.of(
          "listen",
          "path",
          "allowedOrigins",
          "allowLoopbackOrigins",
          "allowedHosts",
          "eventLoops",
          "nativeTransport",
          "drainTimeout",
          "maxJsonDepth",
          "maxBatchSize",
          "maxConnections",
          "maxConnectionsPerClient",
          "headerTimeout",
          "idleTimeout",
          "requestBodyTimeout",
          "maxBufferedRequestBytes",
          "maxUndeliveredBytes",
          "h2c");
  static final List<String> STREAM_KEYS =
      List.of("maxEvents", "maxBytes", "maxAge", "priming", "maxTotalBytes");
  static final List<String> ADMIN_KEYS = List.of("listen", "tokenFile");

  /**
   * Reads the sidecar sections of {@code config} (flags were applied when it was loaded;
   * environment variables {@code TALLY_<SECTION>_<KEY>} are applied here).
   *
   * @throws dev.tally.core.config.ConfigException naming every problem
   */
  public static SidecarSettings from(TallyConfig config, ConfigOverrides overrides) {
    ConfigSection up = section(config, "upstream", overrides, UPSTREAM_KEYS);
    ConfigSection sc = section(config, "sidecar", overrides, SIDECAR_KEYS);
    ConfigSection st = section(config, "stream", overrides, STREAM_KEYS);
    ConfigSection ad = section(config, "admin", overrides, ADMIN_KEYS);
    up.allowKeys(UPSTREAM_KEYS);
    sc.allowKeys(SIDECAR_KEYS);
    st.allowKeys(STREAM_KEYS);
    ad.allowKeys(ADMIN_KEYS);

    String url = up.string("url", null);
    URI upstream = null;
    if (url == null) {
      up.problem(
          "url",
          "missing (expected: the MCP server's URL, e.g. http://127.0.0.1:3000/mcp; flag --upstream)");
    } else {
      String shown = UrlRedaction.ofText(url);
      try {
        upstream = URI.create(url);
        if (UrlRedaction.hasUserInfo(upstream)) {
          up.problem("url", shown + " (expected: " + SidecarOptions.NO_CREDENTIALS + ")");
          upstream = null;
        } else if (!"http".equals(upstream.getScheme()) && !"https".equals(upstream.getScheme())
            || upstream.getHost() == null) {
          up.problem("url", shown + " (expected: an http:// or https:// URL with a host)");
          upstream = null;
        }
      } catch (IllegalArgumentException e) {
        up.problem("url", shown + " (expected: an http:// or https:// URL with a host)");
      }
    }
    HostPort listen =
        hostPort(
            sc, "listen", new HostPort(SidecarOptions.DEFAULT_HOST, SidecarOptions.DEFAULT_PORT));
    HostPort adminListen = hostPort(ad, "listen", AdminOptions.DEFAULT_LISTEN);
    String token = adminToken(ad, overrides);
    if (adminListen != null
        && !adminListen.isLoopback()
        && token == null
        && !tokenGiven(ad, overrides)) {
      ad.problem(
          "tokenFile",
          "missing while admin.listen is "
              + adminListen
              + " (expected: a bearer token file, or env "
              + ADMIN_TOKEN_ENV
              + ", whenever the admin port is reachable beyond loopback)");
    }
    Duration drain =
        sc.duration("drainTimeout", DEFAULT_DRAIN_TIMEOUT, Duration.ZERO, Duration.ofHours(1));
    // Build with a placeholder when the URL is bad so every other key is still validated.
    SidecarOptions.Builder b =
        SidecarOptions.builder(upstream != null ? upstream : URI.create("http://invalid.invalid/"));
    {
      if (listen != null) {
        b.host(listen.host()).port(listen.port());
      }
      String path = sc.string("path", null);
      if (path != null) {
        b.path(path);
      }
      b.allowedOrigins(
          sc.strings(
              "allowedOrigins",
              List.of(),
              s -> !s.isBlank(),
              "an origin like https://app.example.com"));
      Boolean loopback = sc.bool("allowLoopbackOrigins", null);
      if (loopback != null) {
        b.allowLoopbackOrigins(loopback);
      }
      b.allowedHosts(
          sc.strings(
              "allowedHosts",
              List.of(),
              Hosts::isValidName,
              "a host name like mcp.example.com (no scheme, path or port), or *"));
      b.maxRequestBytes(config.limits().maxRequestBytes());
      int depth = sc.integer("maxJsonDepth", config.limits().maxJsonDepth(), 1, 1000);
      if (depth < SidecarOptions.MIN_JSON_DEPTH) {
        // An MCP request's envelope alone nests a few levels.
        sc.problem(
            "maxJsonDepth",
            depth
                + " (expected: at least "
                + SidecarOptions.MIN_JSON_DEPTH
                + " for the sidecar, whose MCP envelopes nest several levels; it follows"
                + " limits.maxJsonDepth unless sidecar.maxJsonDepth is set)");
      } else {
        b.maxJsonDepth(depth);
      }
      b.maxBatchSize(
          sc.integer(
              "maxBatchSize",
              SidecarOptions.DEFAULT_MAX_BATCH_SIZE,
              1,
              SidecarOptions.MAX_BATCH_SIZE_LIMIT));
      clientLimits(sc, b);
      Integer loops = sc.integer("eventLoops", null, 1, 64);
      if (loops != null) {
        b.eventLoops(loops);
      }
      Boolean nat = sc.bool("nativeTransport", null);
      if (nat != null) {
        b.nativeTransport(nat);
      }
      b.upstreamTimeout(
          up.duration(
              "timeout",
              SidecarOptions.DEFAULT_UPSTREAM_TIMEOUT,
              Duration.ofMillis(1),
              Duration.ofHours(24)));
      b.upstreamConnectTimeout(
          up.duration(
              "connectTimeout",
              SidecarOptions.DEFAULT_UPSTREAM_CONNECT_TIMEOUT,
              Duration.ofMillis(1),
              Duration.ofMinutes(10)));
      b.upstreamMaxConnections(
          up.integer(
              "maxConnections", SidecarOptions.DEFAULT_UPSTREAM_MAX_CONNECTIONS, 1, 100_000));
      b.maxResponseBytes(
          up.bytes(
                  "maxResponseBytes",
                  (long) SidecarOptions.DEFAULT_MAX_RESPONSE_BYTES,
                  1024L,
                  (long) Integer.MAX_VALUE)
              .intValue());
      b.upstreamCancelGrace(
          up.duration(
              "cancelGrace",
              SidecarOptions.DEFAULT_UPSTREAM_CANCEL_GRACE,
              Duration.ZERO,
              Duration.ofHours(1)));
      Boolean listTools = up.bool("listTools", null);
      b.listTools(listTools == null || listTools);
      String headerFile = up.string("listToolsHeaderFile", null);
      if (headerFile != null) {
        b.listToolsHeaders(ListingHeaders.read(up, "listToolsHeaderFile", Path.of(headerFile)));
      }
      b.streamMaxEvents(
          st.integer("maxEvents", SidecarOptions.DEFAULT_STREAM_MAX_EVENTS, 1, 1_000_000));
      b.streamMaxBytes(
          st.bytes("maxBytes", SidecarOptions.DEFAULT_STREAM_MAX_BYTES, 1024L, 1L << 34));
      b.streamMaxAge(
          st.duration(
              "maxAge",
              SidecarOptions.DEFAULT_STREAM_MAX_AGE,
              Duration.ofSeconds(1),
              Duration.ofDays(1)));
      Long total = st.bytes("maxTotalBytes", 0L, 0L, 1L << 40);
      if (total != null) {
        b.streamMaxTotalBytes(total);
      }
      Boolean priming = st.bool("priming", null);
      if (priming != null) {
        b.primingEvents(priming);
      }
    }
    List<String> problems = new java.util.ArrayList<>();
    for (ConfigSection section : List.of(up, sc, st, ad)) {
      problems.addAll(section.problems());
    }
    if (config.actor().sources().stream()
        .anyMatch(x -> x.kind() == dev.tally.core.actor.ActorSource.Kind.CLIENT_CERT)) {
      // The listener speaks plain HTTP: no client certificate ever reaches it.
      problems.add(
          "actor.sources: client_cert is not available in the sidecar, which does not terminate"
              + " TLS (expected: let the TLS-terminating ingress pass the verified subject in a"
              + " header it sets and strips, as a header source)");
    }
    if (dev.tally.core.config.KeySource.lacksSharedKey(config)) {
      // A key generated per replica would make the replicas' fingerprints differ: a retry that
      // reaches another replica would not be recognised and would run again.
      problems.add(dev.tally.core.config.KeySource.SHARED_KEY_REQUIRED);
    }
    if (!problems.isEmpty()) {
      throw new dev.tally.core.config.ConfigException(
          "configuration", List.copyOf(new java.util.LinkedHashSet<>(problems)));
    }
    SidecarOptions options = b.build();
    return new SidecarSettings(
        options, new AdminOptions(adminListen, token, options.allowedHosts()), drain);
  }

  /** The {@code sidecar.*} keys of {@link ClientLimits}. */
  private static void clientLimits(ConfigSection sc, SidecarOptions.Builder b) {
    ClientLimits d = ClientLimits.DEFAULT;
    Integer max = sc.integer("maxConnections", d.maxConnections(), 1, 1_000_000);
    // Unset, the per-client cap follows a smaller global cap instead of contradicting it.
    Integer perClient =
        sc.integer(
            "maxConnectionsPerClient",
            max == null ? d.maxConnectionsPerClient() : Math.min(d.maxConnectionsPerClient(), max),
            1,
            1_000_000);
    Duration header =
        sc.duration("headerTimeout", d.headerTimeout(), Duration.ofMillis(1), Duration.ofHours(1));
    Duration idle =
        sc.duration("idleTimeout", d.idleTimeout(), Duration.ofMillis(1), Duration.ofDays(1));
    Duration body =
        sc.duration(
            "requestBodyTimeout", d.bodyTimeout(), Duration.ofMillis(1), Duration.ofHours(1));
    Long buffered = sc.bytes("maxBufferedRequestBytes", 0L, 0L, 1L << 40);
    Long undelivered = sc.bytes("maxUndeliveredBytes", d.maxUndeliveredBytes(), 1024L, 1L << 40);
    Boolean h2c = sc.bool("h2c", null);
    if (max == null
        || perClient == null
        || header == null
        || idle == null
        || body == null
        || buffered == null
        || undelivered == null) {
      return; // the section named the problem
    }
    if (perClient > max) {
      sc.problem(
          "maxConnectionsPerClient",
          perClient + " (expected: at most sidecar.maxConnections, " + max + ")");
      return;
    }
    b.clients(
        new ClientLimits(
            max, perClient, header, idle, body, buffered, undelivered, h2c != null && h2c));
  }

  /** Section {@code name} with environment overrides for the keys no flag set (flags win). */
  private static ConfigSection section(
      TallyConfig config, String name, ConfigOverrides overrides, List<String> keys) {
    List<String> fromEnv =
        keys.stream().filter(k -> !overrides.flags().containsKey(name + "." + k)).toList();
    return config.adapters().section(name, overrides, fromEnv);
  }

  private static HostPort hostPort(ConfigSection s, String key, HostPort def) {
    String v = s.string(key, null);
    if (v == null) {
      return def;
    }
    HostPort hp = HostPort.parse(v);
    if (hp == null) {
      s.problem(key, s.raw(key), "HOST:PORT like 127.0.0.1:8080");
    }
    return hp;
  }

  /**
   * The admin token from {@code admin.tokenFile}, else {@value #ADMIN_TOKEN_ENV}; {@code null} when
   * neither is set or the token is refused (then a problem names where it came from, its length and
   * what was expected, never the token).
   */
  private static String adminToken(ConfigSection ad, ConfigOverrides overrides) {
    String file = ad.string("tokenFile", null);
    if (file != null) {
      String t;
      try {
        t = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
      } catch (IOException | RuntimeException e) {
        ad.problem(
            "tokenFile", file + " cannot be read (expected: a readable file holding the token)");
        return null;
      }
      String bad = tokenProblem(t);
      if (bad != null) {
        ad.problem("tokenFile", "the token in " + file + " " + bad);
        return null;
      }
      return t;
    }
    String env = overrides.env(ADMIN_TOKEN_ENV);
    if (env == null || env.isBlank()) {
      return null;
    }
    String t = env.strip();
    String bad = tokenProblem(t);
    if (bad != null) {
      ad.problem("tokenFile", "env " + ADMIN_TOKEN_ENV + ": the token " + bad);
      return null;
    }
    return t;
  }

  /** Whether a token source is configured at all, accepted or not. */
  private static boolean tokenGiven(ConfigSection ad, ConfigOverrides overrides) {
    String env = overrides.env(ADMIN_TOKEN_ENV);
    return ad.string("tokenFile", null) != null || (env != null && !env.isBlank());
  }

  /** Why {@code token} cannot guard the admin port, or {@code null}; never quotes it. */
  static String tokenProblem(String token) {
    String expected =
        " (expected: at least "
            + AdminOptions.MIN_TOKEN_CHARS
            + " visible ASCII characters, e.g. from `openssl rand -hex 32`)";
    if (token.length() < AdminOptions.MIN_TOKEN_CHARS) {
      return "is " + token.length() + " characters" + expected;
    }
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c < 0x21 || c > 0x7e) {
        return "holds a space, control or non-ASCII character at position " + (i + 1) + expected;
      }
    }
    return null;
  }
}
