package dev.tally.core.mcp;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;

/**
 * The Jackson set-up of the wire layer, configured once per depth limit and shared (thread-safe): a
 * scanning factory for bodies that pass through (no tree, no duplicate tracking) and a strict
 * mapper for the messages Tally reads whole (duplicate members anywhere refused, numbers kept
 * exact: integers as integers, decimals as {@link java.math.BigDecimal}, never rounded through a
 * double).
 */
public final class WireJson {
  /** The default nesting limit of a request body (levels of objects and arrays). */
  public static final int DEFAULT_MAX_DEPTH = 64;

  private final int maxDepth;
  private final JsonFactory scanning;
  private final ObjectMapper strict;

  private WireJson(int maxDepth) {
    this.maxDepth = maxDepth;
    StreamReadConstraints limits =
        StreamReadConstraints.builder().maxNestingDepth(maxDepth).build();
    this.scanning = JsonFactory.builder().streamReadConstraints(limits).build();
    JsonFactory strictFactory =
        JsonFactory.builder()
            .streamReadConstraints(limits)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();
    this.strict =
        JsonMapper.builder(strictFactory)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false)
            .build();
  }

  /** Factories that refuse input nested deeper than {@code maxDepth} (at least 4). */
  public static WireJson create(int maxDepth) {
    if (maxDepth < 4) {
      throw new IllegalArgumentException("maxDepth: " + maxDepth + " (expected: at least 4)");
    }
    return new WireJson(maxDepth);
  }

  /** With {@link #DEFAULT_MAX_DEPTH}. */
  public static WireJson defaults() {
    return create(DEFAULT_MAX_DEPTH);
  }

  public int maxDepth() {
    return maxDepth;
  }

  /** The strict mapper: duplicate members refused, exact numbers. */
  public ObjectMapper strict() {
    return strict;
  }

  /** A scanning parser over {@code len} bytes of {@code b} from {@code off}. */
  JsonParser scan(byte[] b, int off, int len) throws IOException {
    return scanning.createParser(b, off, len);
  }

  /** A strict parser over {@code len} bytes of {@code b} from {@code off}. */
  JsonParser strictParser(byte[] b, int off, int len) throws IOException {
    return strict.getFactory().createParser(b, off, len);
  }

  /**
   * What a {@link StreamConstraintsException} says about the input, without a value: a number
   * literal, string or member name over Jackson's length limits, or nesting over {@link
   * #maxDepth()}.
   */
  String describe(StreamConstraintsException e) {
    String m = e.getMessage() == null ? "" : e.getMessage();
    StreamReadConstraints c = StreamReadConstraints.defaults();
    if (m.startsWith("Number value length")) {
      return "a number literal longer than " + c.getMaxNumberLength() + " characters";
    }
    if (m.startsWith("String value length")) {
      return "a string longer than " + c.getMaxStringLength() + " characters";
    }
    if (m.startsWith("Name length")) {
      return "a member name longer than " + c.getMaxNameLength() + " characters";
    }
    if (m.startsWith("Document length")) {
      return "a document longer than Jackson's document limit";
    }
    return "nesting deeper than " + maxDepth + " levels";
  }
}
