package dev.tally.core.config;

import dev.tally.core.actor.ActorConfig;
import dev.tally.core.actor.ActorResolvers;
import dev.tally.core.actor.ActorSource;
import dev.tally.core.actor.JwtConfig;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the {@code actor} section: either an ordered {@code sources} list or one legacy {@code
 * mode} (with {@code header}, {@code claim}, {@code value}), plus {@code jwt} and {@code
 * anonymous}. Records its problems and returns {@link ActorConfig#DEFAULT} when invalid.
 */
final class ActorSection {
  private static final String HEADER_EXPECTED = "an HTTP header name like X-Forwarded-User";
  private static final String CLAIM_EXPECTED = "a claim name like sub, or a pointer like /user/id";

  private ActorSection() {}

  static ActorConfig read(ConfigSection s) {
    s.allowKeys("mode", "header", "claim", "value", "sources", "jwt", "anonymous");
    int before = s.problemCount();
    ActorConfig.Anonymous anonymous =
        s.choice("anonymous", ActorConfig.Anonymous.ALLOW, ActorConfig.Anonymous.class);
    List<ActorSource> sources;
    String fixed = null;
    if (s.has("sources")) {
      for (String legacy : new String[] {"mode", "header", "claim", "value"}) {
        if (s.has(legacy)) {
          s.problem(legacy, "not used with actor.sources (expected: set it inside a source)");
        }
      }
      sources = sources(s);
    } else {
      Legacy l = legacy(s);
      sources = l.sources;
      fixed = l.fixed;
    }
    boolean jwtSource = sources.stream().anyMatch(x -> x.kind() == ActorSource.Kind.JWT_CLAIM);
    JwtConfig jwt = null;
    if (s.has("jwt")) {
      if (!jwtSource) {
        s.problem("jwt", "only used with a jwt_claim source");
      } else {
        jwt = jwt(s.section("jwt"));
      }
    } else if (jwtSource) {
      s.problem(
          "jwt",
          "missing (expected: jwksFile, jwksUrl or publicKeyFile with issuer and audience, so that"
              + " Tally verifies each token; or verifiedBy: ingress if a verifying ingress in"
              + " front rejects every request without a valid token)");
    }
    if (fixed != null && s.has("anonymous")) {
      s.problem("anonymous", "not used with mode fixed (every request has the fixed actor)");
    }
    if (s.problemCount() != before) {
      return ActorConfig.DEFAULT;
    }
    try {
      return new ActorConfig(
          sources, jwt, fixed, fixed != null ? ActorConfig.Anonymous.ALLOW : anonymous);
    } catch (IllegalArgumentException e) {
      s.problem("sources", e.getMessage());
      return ActorConfig.DEFAULT;
    }
  }

  private record Legacy(List<ActorSource> sources, String fixed) {}

  private static Legacy legacy(ConfigSection s) {
    ActorConfig.Mode mode = s.choice("mode", ActorConfig.Mode.TOKEN_HASH, ActorConfig.Mode.class);
    String header = s.string("header", null, ActorConfig::isHeaderName, HEADER_EXPECTED);
    String claim = s.string("claim", null, ActorConfig::isClaim, CLAIM_EXPECTED);
    String value =
        s.string(
            "value",
            null,
            ActorResolvers::isValidActor,
            "1-" + ActorResolvers.MAX_ACTOR_LENGTH + " printable characters");
    String modeName = "mode is " + mode.wireName();
    if (claim != null && mode != ActorConfig.Mode.JWT_CLAIM) {
      s.problem("claim", "only used with mode jwt_claim (" + modeName + ")");
    }
    if (value != null && mode != ActorConfig.Mode.FIXED) {
      s.problem("value", "only used with mode fixed (" + modeName + ")");
    }
    switch (mode) {
      case TOKEN_HASH:
        return ok(
            ActorSource.Kind.TOKEN_HASH,
            header == null ? ActorConfig.DEFAULT_HEADER : header,
            null);
      case JWT_CLAIM:
        return ok(
            ActorSource.Kind.JWT_CLAIM,
            header == null ? ActorConfig.DEFAULT_HEADER : header,
            claim == null ? ActorConfig.DEFAULT_CLAIM : claim);
      case HEADER:
        if (!s.has("header")) {
          s.problem(
              "header", "missing (expected: " + HEADER_EXPECTED + ", required with mode header)");
        } else if (ActorConfig.isCredentialHeader(header)) {
          s.problemShown(
              "header",
              header,
              "a header that carries no credentials; use mode token_hash to identify by token");
        } else if (header != null) {
          return ok(ActorSource.Kind.HEADER, header, null);
        }
        return new Legacy(List.of(), null);
      default:
        if (header != null) {
          s.problem(
              "header", "only used with modes token_hash, header and jwt_claim (" + modeName + ")");
        }
        if (!s.has("value")) {
          s.problem("value", "missing (expected: the actor name, required with mode fixed)");
        }
        return new Legacy(List.of(), value);
    }
  }

  private static Legacy ok(ActorSource.Kind kind, String name, String claim) {
    return new Legacy(List.of(new ActorSource(kind, name, claim)), null);
  }

  private static List<ActorSource> sources(ConfigSection s) {
    List<ConfigSection> list = s.sections("sources");
    if (list.isEmpty() && s.raw("sources").isArray()) {
      s.problem("sources", "empty (expected at least one source)");
    }
    List<ActorSource> out = new ArrayList<>();
    for (ConfigSection e : list) {
      ActorSource src = source(e);
      if (src != null) {
        out.add(src);
      }
    }
    return List.copyOf(out);
  }

  private static ActorSource source(ConfigSection e) {
    if (!e.has("type")) {
      e.problem(
          "type", "missing (expected one of: token_hash, header, cookie, client_cert, jwt_claim)");
      return null;
    }
    ActorSource.Kind kind = e.choice("type", null, ActorSource.Kind.class);
    if (kind == null) {
      return null;
    }
    switch (kind) {
      case TOKEN_HASH -> {
        e.allowKeys("type", "header");
        return new ActorSource(
            kind,
            e.string(
                "header", ActorConfig.DEFAULT_HEADER, ActorConfig::isHeaderName, HEADER_EXPECTED),
            null);
      }
      case HEADER -> {
        e.allowKeys("type", "header");
        String h = e.string("header", null, ActorConfig::isHeaderName, HEADER_EXPECTED);
        if (!e.has("header")) {
          e.problem(
              "header", "missing (expected: " + HEADER_EXPECTED + ", required with type header)");
          return null;
        }
        if (ActorConfig.isCredentialHeader(h)) {
          e.problemShown(
              "header", h, "a header that carries no credentials; use type token_hash or cookie");
          return null;
        }
        return h == null ? null : new ActorSource(kind, h, null);
      }
      case COOKIE -> {
        e.allowKeys("type", "cookie");
        String c =
            e.string("cookie", null, ActorConfig::isCookieName, "a cookie name like session");
        if (!e.has("cookie")) {
          e.problem("cookie", "missing (expected: a cookie name, required with type cookie)");
        }
        return c == null ? null : new ActorSource(kind, c, null);
      }
      case CLIENT_CERT -> {
        e.allowKeys("type");
        return new ActorSource(kind, null, null);
      }
      default -> {
        e.allowKeys("type", "header", "claim");
        String h =
            e.string(
                "header", ActorConfig.DEFAULT_HEADER, ActorConfig::isHeaderName, HEADER_EXPECTED);
        String c =
            e.string("claim", ActorConfig.DEFAULT_CLAIM, ActorConfig::isClaim, CLAIM_EXPECTED);
        return new ActorSource(kind, h, c);
      }
    }
  }

  private static JwtConfig jwt(ConfigSection j) {
    j.allowKeys(
        "verifiedBy",
        "issuer",
        "audience",
        "jwksFile",
        "jwksUrl",
        "publicKeyFile",
        "clockSkew",
        "refresh");
    int before = j.problemCount();
    JwtConfig.VerifiedBy by =
        j.choice("verifiedBy", JwtConfig.VerifiedBy.TALLY, JwtConfig.VerifiedBy.class);
    Duration skew =
        j.duration(
            "clockSkew", JwtConfig.DEFAULT_CLOCK_SKEW, Duration.ZERO, Duration.ofMinutes(10));
    Duration refresh =
        j.duration("refresh", JwtConfig.DEFAULT_REFRESH, JwtConfig.MIN_REFETCH, Duration.ofDays(1));
    if (by == JwtConfig.VerifiedBy.INGRESS) {
      for (String k :
          new String[] {
            "issuer", "audience", "jwksFile", "jwksUrl", "publicKeyFile", "clockSkew", "refresh"
          }) {
        if (j.has(k)) {
          j.problem(k, "not used with verifiedBy: ingress (the ingress verifies)");
        }
      }
      return j.problemCount() == before ? JwtConfig.ingress() : null;
    }
    String issuer = j.string("issuer", null, x -> !x.isBlank(), "the exact iss of accepted tokens");
    List<String> audiences = j.strings("audience", List.of(), x -> !x.isBlank(), "an aud value");
    String file = j.string("jwksFile", null, ActorSection::isPath, "a file path");
    String url = j.string("jwksUrl", null, ActorSection::isHttpUrl, "an http or https URL");
    String pem = j.string("publicKeyFile", null, ActorSection::isPath, "a file path");
    if (!j.has("issuer")) {
      j.problem("issuer", "missing (expected: the exact iss of accepted tokens)");
    }
    if (!j.has("audience")) {
      j.problem("audience", "missing (expected: the aud value(s) tokens must carry)");
    }
    int keys =
        (j.has("jwksFile") ? 1 : 0) + (j.has("jwksUrl") ? 1 : 0) + (j.has("publicKeyFile") ? 1 : 0);
    if (keys != 1) {
      j.problem(
          "jwksFile",
          (keys == 0 ? "missing" : "more than one key source")
              + " (expected exactly one of jwksFile, jwksUrl, publicKeyFile; or verifiedBy:"
              + " ingress)");
    }
    if (j.problemCount() != before) {
      return null;
    }
    return new JwtConfig(
        by,
        issuer,
        audiences,
        file == null ? null : Path.of(file),
        url == null ? null : URI.create(url),
        pem == null ? null : Path.of(pem),
        skew,
        refresh);
  }

  private static boolean isPath(String s) {
    try {
      Path.of(s);
      return !s.isBlank();
    } catch (InvalidPathException e) {
      return false;
    }
  }

  private static boolean isHttpUrl(String s) {
    try {
      URI u = new URI(s);
      return ("http".equals(u.getScheme()) || "https".equals(u.getScheme())) && u.getHost() != null;
    } catch (URISyntaxException e) {
      return false;
    }
  }
}
