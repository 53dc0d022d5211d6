package dev.tally.core.actor;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.util.Base64;

/**
 * Reads one claim of a JWT, either from a payload Tally verified ({@link JwtVerifier}) or, where
 * the operator declared a verifying ingress in front ({@code actor.jwt.verifiedBy: ingress}), from
 * the payload of a compact JWS (RFC 7515 §7.1) as it is.
 */
final class JwtClaimActor {
  /** Longer tokens are not decoded (hostile input). */
  static final int MAX_TOKEN_CHARS = 16 * 1024;

  static final ObjectMapper JSON =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder().maxNestingDepth(32).build())
                  .build())
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private final JsonPointer pointer;
  private final String claim;

  JwtClaimActor(String claim) {
    this.claim = claim;
    this.pointer = JsonPointer.compile(claim.startsWith("/") ? claim : "/" + escape(claim));
  }

  /** {@code jwt:} + the claim's value in {@code payload}, or {@code null} when it is unusable. */
  String actor(JsonNode payload) {
    JsonNode value = payload.at(pointer);
    String actor;
    if (value.isTextual()) {
      actor = value.asText();
    } else if (value.isIntegralNumber()) {
      actor = value.bigIntegerValue().toString();
    } else {
      return null;
    }
    return ActorResolvers.isValidActor(actor) ? "jwt:" + actor : null;
  }

  String claim() {
    return claim;
  }

  /** The decoded payload object, or {@code null} when {@code jwt} is not a compact JWS. */
  static JsonNode unverifiedPayload(String jwt) {
    int a = jwt.indexOf('.');
    int b = jwt.indexOf('.', a + 1);
    if (a <= 0 || b < 0 || jwt.indexOf('.', b + 1) >= 0 || b == a + 1) {
      return null;
    }
    try {
      byte[] json = Base64.getUrlDecoder().decode(jwt.substring(a + 1, b));
      JsonNode node = JSON.readTree(json);
      return node != null && node.isObject() ? node : null;
    } catch (IllegalArgumentException | IOException e) {
      return null;
    }
  }

  private static String escape(String name) {
    return name.replace("~", "~0").replace("/", "~1");
  }
}
