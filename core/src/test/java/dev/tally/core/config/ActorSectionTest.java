package dev.tally.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tally.core.actor.ActorConfig;
import dev.tally.core.actor.ActorSource;
import dev.tally.core.actor.JwtConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ActorSectionTest {

  private static ActorConfig actor(String yaml) {
    return TallyConfig.parse(yaml, Map.of()).actor();
  }

  private static List<String> problems(String yaml) {
    return catchThrowableOfType(ConfigException.class, () -> TallyConfig.parse(yaml, Map.of()))
        .problems();
  }

  @Test
  void eachModeWithItsDefaults() {
    assertThat(actor("actor: {mode: token_hash}")).isEqualTo(ActorConfig.DEFAULT);
    assertThat(actor("actor: {mode: token_hash, header: X-Api-Key}"))
        .isEqualTo(ActorConfig.tokenHash("X-Api-Key"));
    assertThat(actor("actor: {mode: header, header: X-Forwarded-User}"))
        .isEqualTo(ActorConfig.header("X-Forwarded-User"));
    assertThat(actor("actor: {mode: jwt_claim, jwt: {verifiedBy: ingress}}"))
        .isEqualTo(ActorConfig.jwtClaim("Authorization", "sub", JwtConfig.ingress()));
    assertThat(
            actor(
                "actor: {mode: jwt_claim, header: X-Jwt, claim: email, jwt: {verifiedBy: ingress}}"))
        .isEqualTo(ActorConfig.jwtClaim("X-Jwt", "email", JwtConfig.ingress()));
    assertThat(actor("actor: {mode: fixed, value: batch-runner}"))
        .isEqualTo(ActorConfig.fixed("batch-runner"));
  }

  @Test
  void headerModeNeedsANonCredentialHeader() {
    assertThat(problems("actor: {mode: header}"))
        .containsExactly(
            "actor.header: missing (expected: an HTTP header name like X-Forwarded-User, required"
                + " with mode header)");
    assertThat(problems("actor: {mode: header, header: authorization}"))
        .containsExactly(
            "actor.header: authorization (expected: a header that carries no credentials; use mode"
                + " token_hash to identify by token)");
  }

  @Test
  void keysOfOtherModesAreRejected() {
    assertThat(problems("actor: {claim: sub, value: x}"))
        .containsExactly(
            "actor.claim: only used with mode jwt_claim (mode is token_hash)",
            "actor.value: only used with mode fixed (mode is token_hash)");
    assertThat(problems("actor: {mode: fixed, header: X-User}"))
        .containsExactly(
            "actor.header: only used with modes token_hash, header and jwt_claim (mode is fixed)",
            "actor.value: missing (expected: the actor name, required with mode fixed)");
  }

  @Test
  void valuesAreValidated() {
    assertThat(
            problems(
                "actor: {mode: jwt_claim, header: 'X Bad', claim: '/a/~9', jwt: {verifiedBy: ingress}}\n"))
        .containsExactly(
            "actor.header: X Bad (expected: an HTTP header name like X-Forwarded-User)",
            "actor.claim: /a/~9 (expected: a claim name like sub, or a pointer like /user/id)");
    assertThat(problems("actor: {mode: fixed, value: \"a\\u0000b\"}"))
        .containsExactly("actor.value: a?b (expected: 1-256 printable characters)");
    assertThat(problems("actor: {mode: robot}"))
        .containsExactly(
            "actor.mode: robot (expected: one of token_hash, header, jwt_claim, fixed)");
  }

  @Test
  void modeCanComeFromTheEnvironment() {
    ActorConfig a =
        TallyConfig.parse(
                "",
                Map.of("TALLY_ACTOR_MODE", "header", "TALLY_ACTOR_HEADER", "X-Auth-Request-User"))
            .actor();
    assertThat(a).isEqualTo(ActorConfig.header("X-Auth-Request-User"));
  }

  @Test
  void anOrderedListOfSources() {
    ActorConfig a =
        actor(
            """
            actor:
              sources:
                - {type: token_hash}
                - {type: token_hash, header: X-Api-Key}
                - {type: cookie, cookie: session}
                - {type: client_cert}
                - {type: header, header: X-Forwarded-User}
                - {type: jwt_claim, claim: email}
              jwt: {verifiedBy: ingress}
              anonymous: refuse
            """);
    assertThat(a.sources())
        .containsExactly(
            ActorSource.tokenHash("Authorization"),
            ActorSource.tokenHash("X-Api-Key"),
            ActorSource.cookie("session"),
            ActorSource.clientCert(),
            ActorSource.header("X-Forwarded-User"),
            ActorSource.jwtClaim("Authorization", "email"));
    assertThat(a.jwt()).isEqualTo(JwtConfig.ingress());
    assertThat(a.anonymous()).isEqualTo(ActorConfig.Anonymous.REFUSE);
    assertThat(a.allowsAnonymous()).isFalse();
  }

  @Test
  void aVerifyingJwtSectionNeedsIssuerAudienceAndOneKeySource() {
    ActorConfig a =
        actor(
            """
            actor:
              sources: [{type: jwt_claim}]
              jwt: {issuer: https://idp.test, audience: mcp, jwksUrl: https://idp.test/jwks}
            """);
    assertThat(a.jwt().verifiedBy()).isEqualTo(JwtConfig.VerifiedBy.TALLY);
    assertThat(a.jwt().audiences()).containsExactly("mcp");
    assertThat(problems("actor: {sources: [{type: jwt_claim}], jwt: {issuer: x}}"))
        .containsExactly(
            "actor.jwt.audience: missing (expected: the aud value(s) tokens must carry)",
            "actor.jwt.jwksFile: missing (expected exactly one of jwksFile, jwksUrl, publicKeyFile;"
                + " or verifiedBy: ingress)");
    assertThat(
            problems(
                "actor: {sources: [{type: jwt_claim}], jwt: {verifiedBy: ingress, issuer: x}}"))
        .containsExactly(
            "actor.jwt.issuer: not used with verifiedBy: ingress (the ingress verifies)");
  }

  @Test
  void legacyJwtClaimModeWithoutVerificationIsAMigrationError() {
    assertThat(problems("actor: {mode: jwt_claim}"))
        .singleElement()
        .satisfies(
            p ->
                assertThat(p)
                    .startsWith("actor.jwt: missing")
                    .contains("jwksFile, jwksUrl or publicKeyFile")
                    .contains("verifiedBy: ingress"));
  }

  @Test
  void sourcesAreValidatedOneByOne() {
    assertThat(
            problems(
                "actor: {mode: header, sources: [{type: cookie}, {type: robot}, {type: header,"
                    + " header: Cookie}, {type: client_cert, header: X}]}"))
        .containsExactly(
            "actor.mode: not used with actor.sources (expected: set it inside a source)",
            "actor.sources[0].cookie: missing (expected: a cookie name, required with type cookie)",
            "actor.sources[1].type: robot (expected: one of token_hash, header, cookie,"
                + " client_cert, jwt_claim)",
            "actor.sources[2].header: Cookie (expected: a header that carries no credentials; use"
                + " type token_hash or cookie)",
            "actor.sources[3].header: unknown key (expected one of: type)");
  }
}
