package dev.tally.core.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.canonical.CanonicalizationException.Code;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * Writes a Jackson tree as RFC 8785 bytes, validating it on the way (lone surrogates, non-finite
 * and out-of-range numbers, depth, size). One instance per thread: it reuses its output buffer and
 * its per-level member arrays. Iterative, so a deep tree costs heap, not stack.
 *
 * <p>Implementation note (RFC 8785 §3.2.3): members are sorted by their names as UTF-16 code unit
 * sequences, which is exactly {@link String#compareTo}; strings use the minimal escapes of
 * §3.2.2.2; numbers use {@link EsNumberFormat}, or with exact numbers {@link ExactNumberFormat} for
 * integer and decimal nodes (a writeLong of a long is its exact layout: at most 19 digits, plain).
 */
final class CanonicalWriter {
  private static final ThreadLocal<CanonicalWriter> PER_THREAD =
      ThreadLocal.withInitial(CanonicalWriter::new);

  /**
   * Escape byte per ASCII character: 0 literal, 'u' for the six-character form, else the letter.
   */
  private static final byte[] ESCAPE = new byte[128];

  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final int RETAIN_MEMBERS = 1024;
  private static final int STRING_CHUNK = 512;

  static {
    for (int c = 0; c < 0x20; c++) {
      ESCAPE[c] = 'u';
    }
    ESCAPE['\b'] = 'b';
    ESCAPE['\t'] = 't';
    ESCAPE['\n'] = 'n';
    ESCAPE['\f'] = 'f';
    ESCAPE['\r'] = 'r';
    ESCAPE['"'] = '"';
    ESCAPE['\\'] = '\\';
  }

  private final ByteSink out = new ByteSink();
  private final MemberSorter sorter = new MemberSorter();
  private boolean busy;

  // The open containers: level i is an object (names/values hold its sorted members) or an array.
  private JsonNode[] containers = new JsonNode[16];
  private boolean[] isObject = new boolean[16];
  private int[] index = new int[16];
  private int[] size = new int[16];
  private String[][] names = new String[16][];
  private JsonNode[][] values = new JsonNode[16][];
  private int depth;

  private int maxDepth;
  private int maxBytes;
  private boolean exactNumbers;

  /**
   * The canonical bytes of {@code root}: RFC 8785, with numbers as IEEE-754 doubles, or with every
   * number's exact value when {@code exactNumbers} ({@link ExactNumberFormat}).
   */
  static byte[] canonicalize(JsonNode root, CanonicalLimits limits, boolean exactNumbers) {
    CanonicalWriter w = PER_THREAD.get();
    if (w.busy) {
      w = new CanonicalWriter();
    }
    w.busy = true;
    try {
      return w.write(root, limits, exactNumbers);
    } finally {
      w.busy = false;
    }
  }

  private byte[] write(JsonNode root, CanonicalLimits limits, boolean exactNumbers) {
    this.exactNumbers = exactNumbers;
    maxDepth = limits.maxDepth();
    maxBytes = limits.maxBytes();
    depth = 0;
    try {
      value(root);
      while (depth > 0) {
        int d = depth - 1;
        int i = index[d];
        if (i == size[d]) {
          out.write(isObject[d] ? (byte) '}' : (byte) ']');
          pop();
          continue;
        }
        if (i > 0) {
          out.write((byte) ',');
        }
        index[d] = i + 1;
        JsonNode v;
        if (isObject[d]) {
          string(names[d][i], true);
          out.write((byte) ':');
          v = values[d][i];
        } else {
          v = containers[d].get(i);
        }
        value(v);
      }
      if (out.len > maxBytes) {
        throw tooLarge();
      }
      return out.toByteArray();
    } finally {
      while (depth > 0) {
        pop();
      }
      out.reset();
    }
  }

  private void value(JsonNode v) {
    switch (v.getNodeType()) {
      case OBJECT:
        open(v, true);
        break;
      case ARRAY:
        open(v, false);
        break;
      case STRING:
        string(v.textValue(), false);
        break;
      case NUMBER:
        number(v);
        break;
      case BOOLEAN:
        out.writeAscii(v.booleanValue() ? "true" : "false");
        break;
      case NULL:
        out.writeAscii("null");
        break;
      default:
        throw new CanonicalizationException(
            Code.MALFORMED, pointer(depth), "a " + v.getNodeType() + " node is not a JSON value");
    }
    if (out.len > maxBytes) {
      throw tooLarge();
    }
  }

  private void open(JsonNode v, boolean object) {
    if (depth >= maxDepth) {
      throw new CanonicalizationException(
          Code.TOO_DEEP, pointer(depth), "nesting deeper than " + maxDepth + " levels");
    }
    if (depth == containers.length) {
      int n = depth * 2;
      containers = Arrays.copyOf(containers, n);
      isObject = Arrays.copyOf(isObject, n);
      index = Arrays.copyOf(index, n);
      size = Arrays.copyOf(size, n);
      names = Arrays.copyOf(names, n);
      values = Arrays.copyOf(values, n);
    }
    int d = depth;
    int n = v.size();
    containers[d] = v;
    isObject[d] = object;
    index[d] = 0;
    size[d] = n;
    if (object) {
      String[] k = names[d];
      JsonNode[] val = values[d];
      if (k == null || k.length < n) {
        k = names[d] = new String[Math.max(n, 8)];
        val = values[d] = new JsonNode[k.length];
      }
      int i = 0;
      for (Map.Entry<String, JsonNode> e : v.properties()) {
        k[i] = e.getKey();
        val[i++] = e.getValue();
      }
      sorter.sort(k, val, n);
    }
    depth = d + 1;
    out.write(object ? (byte) '{' : (byte) '[');
  }

  private void pop() {
    int d = --depth;
    containers[d] = null;
    if (isObject[d]) {
      // Drop references to the caller's tree: the arrays outlive this call.
      if (names[d].length > RETAIN_MEMBERS) {
        names[d] = null;
        values[d] = null;
      } else {
        Arrays.fill(names[d], 0, size[d], null);
        Arrays.fill(values[d], 0, size[d], null);
      }
    }
  }

  private void number(JsonNode v) {
    switch (v.numberType()) {
      case INT:
      case LONG:
        long l = v.longValue();
        if (exactNumbers || l >= -(1L << 53) && l <= 1L << 53) {
          out.writeLong(l);
        } else {
          EsNumberFormat.write((double) l, out);
        }
        return;
      default:
        int problem = JsonNumbers.check(v);
        if (problem != JsonNumbers.OK) {
          throw JsonNumbers.error(problem, pointer(depth));
        }
        if (exactNumbers && (v.isBigDecimal() || v.isBigInteger())) {
          ExactNumberFormat.write(v.decimalValue(), out);
        } else {
          EsNumberFormat.write(JsonNumbers.value(v), out);
        }
    }
  }

  /** Writes {@code s} quoted with RFC 8785 §3.2.2.2 escapes; UTF-8 for everything else. */
  private void string(String s, boolean memberName) {
    int n = s.length();
    out.ensure(2);
    out.buf[out.len++] = '"';
    int i = 0;
    while (i < n) {
      int end = Math.min(n, i + STRING_CHUNK);
      out.ensure((end - i) * 6 + 6);
      byte[] b = out.buf;
      int p = out.len;
      for (; i < end; i++) {
        char c = s.charAt(i);
        if (c < 0x80) {
          byte e = ESCAPE[c];
          if (e == 0) {
            b[p++] = (byte) c;
          } else {
            b[p++] = '\\';
            b[p++] = e;
            if (e == 'u') {
              b[p++] = '0';
              b[p++] = '0';
              b[p++] = HEX[c >> 4];
              b[p++] = HEX[c & 0xf];
            }
          }
        } else if (c < 0x800) {
          b[p++] = (byte) (0xC0 | c >> 6);
          b[p++] = (byte) (0x80 | c & 0x3F);
        } else if (!Character.isSurrogate(c)) {
          b[p++] = (byte) (0xE0 | c >> 12);
          b[p++] = (byte) (0x80 | c >> 6 & 0x3F);
          b[p++] = (byte) (0x80 | c & 0x3F);
        } else {
          char low = i + 1 < n ? s.charAt(i + 1) : 0;
          if (!Character.isHighSurrogate(c) || !Character.isLowSurrogate(low)) {
            throw loneSurrogate(i, memberName);
          }
          int cp = Character.toCodePoint(c, low);
          b[p++] = (byte) (0xF0 | cp >> 18);
          b[p++] = (byte) (0x80 | cp >> 12 & 0x3F);
          b[p++] = (byte) (0x80 | cp >> 6 & 0x3F);
          b[p++] = (byte) (0x80 | cp & 0x3F);
          i++;
        }
      }
      out.len = p;
    }
    out.write((byte) '"');
  }

  private CanonicalizationException loneSurrogate(int at, boolean memberName) {
    if (memberName) {
      return new CanonicalizationException(
          Code.LONE_SURROGATE, pointer(depth - 1), "object member name contains a lone surrogate");
    }
    return new CanonicalizationException(
        Code.LONE_SURROGATE,
        pointer(depth),
        "string contains a lone surrogate (UTF-16 unit " + at + ")");
  }

  private CanonicalizationException tooLarge() {
    return new CanonicalizationException(
        Code.TOO_LARGE,
        "",
        "canonical form longer than "
            + maxBytes
            + " bytes (the canonical record's limit; number literals such as 1e20 are written"
            + " out in full by RFC 8785 and can make it much longer than the request)");
  }

  /** The pointer of the value being written inside the first {@code levels} open containers. */
  private String pointer(int levels) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < levels; i++) {
      int current = index[i] - 1;
      if (isObject[i]) {
        JsonPointers.appendToken(sb, names[i][current]);
      } else {
        sb.append('/').append(current);
      }
    }
    return sb.toString();
  }
}
