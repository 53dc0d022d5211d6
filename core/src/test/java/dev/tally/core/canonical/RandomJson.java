package dev.tally.core.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Random JSON documents from a seeded {@link Random}, and random (non-canonical) spellings of them:
 * shuffled members, random whitespace, random escapes and number spellings.
 */
final class RandomJson {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final String[] PIECES = {
    "a",
    "b",
    "Z",
    "0",
    "9",
    " ",
    "_",
    "-",
    "/",
    "~",
    "\"",
    "\\",
    "\u0000",
    "\u0001",
    "\b",
    "\t",
    "\n",
    "\f",
    "\r",
    "\u001f",
    "\u007f",
    "\u0080",
    "é",
    "ö",
    "\u030a",
    "€",
    "\u2028",
    "\uFB33",
    "\uFEFF",
    "\uFFFF",
    "中",
    "\uD83D\uDE02",
    "\uD800\uDC00",
    "\uDBFF\uDFFF",
    "\uD83C\uDF89"
  };

  private final Random random;

  RandomJson(long seed) {
    this.random = new Random(seed);
  }

  /** A random tree whose numbers are built as {@link Jcs#parse} builds them. */
  JsonNode tree(int maxDepth) {
    int kind = random.nextInt(maxDepth <= 1 ? 5 : 8);
    switch (kind) {
      case 0:
        return NullNode.instance;
      case 1:
        return BooleanNode.valueOf(random.nextBoolean());
      case 2:
        return JsonNumbers.node(number());
      case 3:
      case 4:
        return TextNode.valueOf(string(10));
      case 5:
        ArrayNode a = NODES.arrayNode();
        for (int i = random.nextInt(5); i > 0; i--) {
          a.add(tree(maxDepth - 1));
        }
        return a;
      default:
        ObjectNode o = NODES.objectNode();
        for (int i = random.nextInt(7); i > 0; i--) {
          o.set(string(6), tree(maxDepth - 1));
        }
        return o;
    }
  }

  double number() {
    switch (random.nextInt(5)) {
      case 0:
        return random.nextInt(2001) - 1000;
      case 1:
        return random.nextGaussian() * Math.pow(10, random.nextInt(40) - 20);
      case 2:
        double d = Double.longBitsToDouble(random.nextLong());
        return Double.isFinite(d) ? d : 0.25;
      case 3:
        return random.nextLong() >> random.nextInt(64);
      default:
        return Double.parseDouble(random.nextInt(100000) + "e" + (random.nextInt(60) - 30));
    }
  }

  String string(int maxPieces) {
    StringBuilder sb = new StringBuilder();
    for (int i = random.nextInt(maxPieces + 1); i > 0; i--) {
      sb.append(PIECES[random.nextInt(PIECES.length)]);
    }
    return sb.toString();
  }

  /** A random spelling of {@code node} as JSON text. */
  String spell(JsonNode node) {
    StringBuilder sb = new StringBuilder();
    ws(sb);
    spell(node, sb);
    ws(sb);
    return sb.toString();
  }

  private void spell(JsonNode node, StringBuilder sb) {
    switch (node.getNodeType()) {
      case OBJECT:
        List<Map.Entry<String, JsonNode>> members = new ArrayList<>(node.properties());
        Collections.shuffle(members, random);
        sb.append('{');
        for (int i = 0; i < members.size(); i++) {
          ws(sb);
          if (i > 0) {
            sb.append(',');
            ws(sb);
          }
          spellString(members.get(i).getKey(), sb);
          ws(sb);
          sb.append(':');
          ws(sb);
          spell(members.get(i).getValue(), sb);
        }
        ws(sb);
        sb.append('}');
        return;
      case ARRAY:
        sb.append('[');
        for (int i = 0; i < node.size(); i++) {
          ws(sb);
          if (i > 0) {
            sb.append(',');
            ws(sb);
          }
          spell(node.get(i), sb);
        }
        ws(sb);
        sb.append(']');
        return;
      case STRING:
        spellString(node.textValue(), sb);
        return;
      case NUMBER:
        double d = node.doubleValue();
        switch (random.nextInt(3)) {
          case 0:
            sb.append(Double.toString(d)); // Java spelling, e.g. 1.0E-5
            return;
          case 1:
            sb.append(new BigDecimal(d).toString()); // the exact binary value
            return;
          default:
            sb.append(node.toString());
            return;
        }
      default:
        sb.append(node.toString());
    }
  }

  private void spellString(String s, StringBuilder sb) {
    sb.append('"');
    boolean escapeLowSurrogate = false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean mustEscape = c < 0x20 || c == '"' || c == '\\';
      // A surrogate pair is spelled as two escapes or as one literal character, never mixed.
      boolean escape =
          Character.isLowSurrogate(c) ? escapeLowSurrogate : mustEscape || random.nextInt(6) == 0;
      escapeLowSurrogate = Character.isHighSurrogate(c) && escape;
      if (escape) {
        String shortForm =
            c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '/' ? "\\/" : null;
        if (shortForm != null && random.nextBoolean()) {
          sb.append(shortForm);
        } else {
          sb.append(String.format(random.nextBoolean() ? "\\u%04x" : "\\u%04X", (int) c));
        }
      } else {
        sb.append(c);
      }
    }
    sb.append('"');
  }

  private void ws(StringBuilder sb) {
    for (int i = random.nextInt(4) - 1; i > 0; i--) {
      sb.append(" \t\r\n".charAt(random.nextInt(4)));
    }
  }
}
