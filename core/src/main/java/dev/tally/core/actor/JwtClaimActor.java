package dev.tally.core.actor;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.tally.core.mcp.Headers;
import java.io.IOException;
import java.util.Base64;

/**
 * Reads one claim from the payload of a compact JWS (RFC 7515 §7.1: {@code
 * header.payload.signature}, base64url without padding) WITHOUT verifying it: the ingress in front
 * of Tally must have done that. Anything unusable resolves to {@link ActorResolvers#ANONYMOUS}.
 */
final class JwtClaimActor implements ActorResolver {
  /** Longer tokens are not decoded (hostile input). */
  static final int MAX_TOKEN_CHARS = 16 * 1024;

  private static final ObjectMapper JSON =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder().maxNestingDepth(32).build())
                  .build())
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private final String header;
  private final String claim;
  private final JsonPointer pointer;

  private JwtClaimActor(String header, String claim) {
    this.header = header;
    this.claim = claim;
    this.pointer = JsonPointer.compile(claim.startsWith("/") ? claim : "/" + escape(claim));
  }

  static JwtClaimActor create(String header, String claim) {
    return new JwtClaimActor(header, claim);
  }

  @Override
  public String resolve(Headers headers) {
    String v = headers.get(header);
    if (v == null || v.isBlank() || v.length() > MAX_TOKEN_CHARS) {
      return ActorResolvers.ANONYMOUS;
    }
    String token = ActorResolvers.bearer(v.strip());
    JsonNode payload = payload(token != null ? token : v.strip());
    if (payload == null) {
      return ActorResolvers.ANONYMOUS;
    }
    JsonNode value = payload.at(pointer);
    String actor;
    if (value.isTextual()) {
      actor = value.asText();
    } else if (value.isIntegralNumber()) {
      actor = value.bigIntegerValue().toString();
    } else {
      return ActorResolvers.ANONYMOUS;
    }
    return ActorResolvers.isValidActor(actor) ? "jwt:" + actor : ActorResolvers.ANONYMOUS;
  }

  /** The decoded payload object, or {@code null} when {@code jwt} is not a compact JWS. */
  private static JsonNode payload(String jwt) {
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

  @Override
  public String toString() {
    return "ActorResolver[jwt_claim, header=" + header + ", claim=" + claim + "]";
  }
}
