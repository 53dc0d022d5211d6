package dev.tally.core.canonical;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tally.core.canonical.CanonicalizationException.Code;
import java.io.IOException;
import java.util.Arrays;

/**
 * Builds a Jackson tree from UTF-8 JSON with Jackson's streaming parser, refusing what RFC 8785
 * cannot canonicalize and tracking the JSON pointer of each value for error messages. Iterative, so
 * nesting depth costs heap, not stack. Thread-safe.
 */
final class StrictTreeReader {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final JsonFactory factory;
  private final int maxDepth;

  StrictTreeReader(CanonicalLimits limits) {
    this.maxDepth = limits.maxDepth();
    // Jackson's own limits are opened up: the byte limit bounds everything, and this reader
    // enforces the depth itself (one level earlier) so that its error carries a pointer.
    StreamReadConstraints constraints =
        StreamReadConstraints.builder()
            .maxNestingDepth(maxDepth == Integer.MAX_VALUE ? maxDepth : maxDepth + 1)
            .maxNumberLength(Integer.MAX_VALUE)
            .maxStringLength(Integer.MAX_VALUE)
            .maxNameLength(Integer.MAX_VALUE)
            .build();
    this.factory =
        JsonFactory.builder()
            .streamReadConstraints(constraints)
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS) // so NaN gets its own error code
            .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
            .disable(JsonFactory.Feature.INTERN_FIELD_NAMES) // names are attacker-chosen
            .build();
  }

  /** The tree of {@code json}; the caller has checked the byte limit. */
  JsonNode read(byte[] json) {
    if (Utf8Scan.startsWithBom(json)) {
      throw new CanonicalizationException(
          Code.MALFORMED, "", "byte order mark before the JSON text (byte offset 0)");
    }
    int scan = Utf8Scan.scan(json);
    if (scan >= 0) {
      throw invalidUtf8(json, scan);
    }
    return new Build(scan == Utf8Scan.VALID).run(json);
  }

  private CanonicalizationException invalidUtf8(byte[] json, int at) {
    String pointer;
    try {
      // The prefix before the bad byte is valid UTF-8; where it ends is where the bad byte sits.
      new Build(true).run(Arrays.copyOf(json, at));
      pointer = "";
    } catch (CanonicalizationException e) {
      pointer = e.pointer();
    }
    if (Utf8Scan.encodedSurrogate(json, at)) {
      return new CanonicalizationException(
          Code.LONE_SURROGATE, pointer, "UTF-8 encoded surrogate (byte offset " + at + ")");
    }
    String what = json[at] == 0 ? "NUL byte" : "invalid UTF-8";
    return new CanonicalizationException(
        Code.MALFORMED, pointer, what + " (byte offset " + at + ")");
  }

  /** One parse: the container stack and the member name or element being read at each level. */
  private final class Build {
    private final boolean checkSurrogates;
    private JsonNode[] containers = new JsonNode[8];
    private String[] names = new String[8];
    private int depth;
    private JsonParser parser;

    Build(boolean checkSurrogates) {
      this.checkSurrogates = checkSurrogates;
    }

    JsonNode run(byte[] json) {
      try (JsonParser p = factory.createParser(json)) {
        parser = p;
        JsonToken t = p.nextToken();
        if (t == null) {
          throw malformed("empty document");
        }
        JsonNode root = tree(t);
        try {
          if (p.nextToken() != null) {
            throw malformed("content after the JSON value");
          }
        } catch (JsonProcessingException e) {
          throw malformed("content after the JSON value" + offset(e.getLocation()));
        }
        return root;
      } catch (JsonEOFException e) {
        throw malformed("unexpected end of input" + offset(e.getLocation()));
      } catch (JsonProcessingException e) {
        String m = e.getOriginalMessage();
        if (m != null && m.contains("surrogate")) {
          // Jackson 2.21+ refuses a broken pair in a member name itself.
          throw new CanonicalizationException(
              Code.LONE_SURROGATE,
              pointer(depth),
              "lone surrogate in a member name" + offset(e.getLocation()));
        }
        throw malformed(describe(m) + offset(e.getLocation()));
      } catch (IOException e) {
        throw malformed("unreadable input");
      }
    }

    private JsonNode tree(JsonToken first) throws IOException {
      JsonParser p = parser;
      JsonNode root = null;
      for (JsonToken t = first; ; t = p.nextToken()) {
        JsonNode value;
        switch (t) {
          case FIELD_NAME:
            String name = p.currentName();
            if (checkSurrogates && Surrogates.lone(name) >= 0) {
              throw new CanonicalizationException(
                  Code.LONE_SURROGATE,
                  pointer(depth - 1),
                  "object member name contains a lone surrogate");
            }
            names[depth - 1] = name;
            continue;
          case END_OBJECT:
          case END_ARRAY:
            containers[--depth] = null;
            names[depth] = null;
            if (depth == 0) {
              return root;
            }
            names[depth - 1] = null;
            continue;
          case START_OBJECT:
            value = NODES.objectNode();
            break;
          case START_ARRAY:
            value = NODES.arrayNode();
            break;
          case VALUE_STRING:
            value = string();
            break;
          case VALUE_NUMBER_INT:
            value = integer();
            break;
          case VALUE_NUMBER_FLOAT:
            value = floating();
            break;
          case VALUE_TRUE:
            value = BooleanNode.TRUE;
            break;
          case VALUE_FALSE:
            value = BooleanNode.FALSE;
            break;
          case VALUE_NULL:
            value = NullNode.instance;
            break;
          default:
            throw malformed("unexpected token");
        }
        boolean container = t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY;
        if (container && depth >= maxDepth) {
          throw new CanonicalizationException(
              Code.TOO_DEEP, pointer(depth), "nesting deeper than " + maxDepth + " levels");
        }
        if (depth == 0) {
          root = value;
        } else {
          attach(value, container);
        }
        if (container) {
          push(value);
        } else if (depth == 0) {
          return root;
        }
      }
    }

    private void attach(JsonNode value, boolean container) {
      JsonNode c = containers[depth - 1];
      if (c instanceof ObjectNode) {
        if (((ObjectNode) c).putIfAbsent(names[depth - 1], value) != null) {
          throw new CanonicalizationException(
              Code.DUPLICATE_KEY, pointer(depth), "duplicate object member name");
        }
        if (!container) {
          names[depth - 1] = null;
        }
      } else {
        ((ArrayNode) c).add(value);
      }
    }

    private void push(JsonNode container) {
      if (depth == containers.length) {
        containers = Arrays.copyOf(containers, depth * 2);
        names = Arrays.copyOf(names, depth * 2);
      }
      containers[depth++] = container;
    }

    private JsonNode string() throws IOException {
      String s = parser.getText();
      if (checkSurrogates) {
        int at = Surrogates.lone(s);
        if (at >= 0) {
          throw new CanonicalizationException(
              Code.LONE_SURROGATE,
              pointer(depth),
              "string contains a lone surrogate (UTF-16 unit " + at + ")");
        }
      }
      return TextNode.valueOf(s);
    }

    private JsonNode integer() throws IOException {
      if (parser.getTextLength() <= 18) {
        return JsonNumbers.node(parser.getLongValue());
      }
      double d = Double.parseDouble(parser.getText());
      if (Double.isInfinite(d)) {
        throw JsonNumbers.error(JsonNumbers.TOO_BIG, pointer(depth));
      }
      return exact(d);
    }

    private JsonNode floating() throws IOException {
      char[] chars = parser.getTextCharacters();
      int off = parser.getTextOffset();
      int len = parser.getTextLength();
      char first = chars[off] == '-' || chars[off] == '+' ? chars[off + 1] : chars[off];
      if (first < '0' || first > '9') {
        throw JsonNumbers.error(JsonNumbers.NON_FINITE, pointer(depth));
      }
      double d = parser.getDoubleValue();
      if (Double.isInfinite(d)) {
        throw JsonNumbers.error(JsonNumbers.TOO_BIG, pointer(depth));
      }
      if (d == 0 && nonZeroSignificand(chars, off, len)) {
        throw JsonNumbers.error(JsonNumbers.UNDERFLOW, pointer(depth));
      }
      return exact(d);
    }

    /**
     * The node for the current number token, whose nearest double {@code d} is in range: the
     * literal's exact value, read only when its digits may say more than {@code d}.
     */
    private JsonNode exact(double d) throws IOException {
      if (d == 0) {
        return JsonNumbers.node(d);
      }
      char[] chars = parser.getTextCharacters();
      int off = parser.getTextOffset();
      int len = parser.getTextLength();
      int digits = NumberLiteral.significantDigits(chars, off, len);
      if (JsonNumbers.isRenderingOf(digits, d)) {
        return JsonNumbers.node(d);
      }
      if (digits > JsonNumbers.MAX_DIGITS) {
        throw JsonNumbers.error(JsonNumbers.TOO_PRECISE, pointer(depth));
      }
      return JsonNumbers.node(NumberLiteral.value(chars, off, len), d);
    }

    /**
     * The pointer of the value being read when {@code levels} containers are open: members by name;
     * array elements by position (the one being read in the innermost open array).
     */
    private String pointer(int levels) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < levels; i++) {
        JsonNode c = containers[i];
        if (c instanceof ObjectNode) {
          if (names[i] == null) {
            break;
          }
          JsonPointers.appendToken(sb, names[i]);
        } else {
          int size = c.size();
          sb.append('/').append(i < depth - 1 ? size - 1 : size);
        }
      }
      return sb.toString();
    }

    private CanonicalizationException malformed(String message) {
      return new CanonicalizationException(Code.MALFORMED, pointer(depth), message);
    }
  }

  private static boolean nonZeroSignificand(char[] chars, int off, int len) {
    for (int i = off, end = off + len; i < end; i++) {
      char c = chars[i];
      if (c == 'e' || c == 'E') {
        return false;
      }
      if (c >= '1' && c <= '9') {
        return true;
      }
    }
    return false;
  }

  private static String offset(JsonLocation location) {
    if (location == null || location.getByteOffset() < 0) {
      return "";
    }
    return " (byte offset " + location.getByteOffset() + ")";
  }

  /** A description of a Jackson parse error that cannot echo input (its message can). */
  private static String describe(String jackson) {
    if (jackson == null) {
      return "malformed JSON";
    }
    if (jackson.startsWith("Unexpected end-of-input")) {
      return "unexpected end of input";
    }
    if (jackson.startsWith("Unexpected character")) {
      return "unexpected character";
    }
    if (jackson.startsWith("Unrecognized token")) {
      return "unrecognized token";
    }
    if (jackson.startsWith("Illegal unquoted character")) {
      return "unescaped control character in a string";
    }
    if (jackson.startsWith("Unrecognized character escape")) {
      return "invalid escape sequence";
    }
    if (jackson.contains("Leading zero")) {
      return "number with leading zeros";
    }
    if (jackson.startsWith("Unexpected close marker")) {
      return "mismatched closing bracket";
    }
    if (jackson.startsWith("Invalid numeric value") || jackson.startsWith("Non-standard token")) {
      return "invalid number";
    }
    return "malformed JSON";
  }
}
