package dev.tally.core.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.UncheckedIOException;

/**
 * The test binding of {@link Canonicalizer} while {@code Jcs} is a stub: Jackson with sorted keys.
 * Identical to RFC 8785 for what journal entries contain (strings without control characters,
 * integers) once characters outside the BMP are written as UTF-8; {@code CanonicalizerTest} checks
 * that against hand-written RFC 8785 output and, once it exists, the real {@code Jcs}.
 */
final class SortedKeysCanonicalizer implements Canonicalizer {
  static final SortedKeysCanonicalizer INSTANCE = new SortedKeysCanonicalizer();

  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
          .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
          // Jackson escapes characters outside the BMP by default; RFC 8785 writes them as UTF-8.
          .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
          .build();

  @Override
  public byte[] canonicalize(JsonNode node) {
    try {
      return MAPPER.writeValueAsBytes(MAPPER.treeToValue(node, Object.class));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
