package dev.tally.core.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.Iterator;

/**
 * RFC 8785 canonical bytes of the entries Tally writes, without the general canonicalizer: a flat
 * object whose values are strings and integers. Returns null for anything else (a nested value, a
 * non-integral or large number, a string with a control character or a surrogate), and the caller
 * falls back to its {@link Canonicalizer}.
 *
 * <p>Implementation note (RFC 8785 §3.2): members are sorted by the UTF-16 code units of their
 * names ({@link String#compareTo}); strings are written as ECMAScript's {@code JSON.stringify}
 * does, which for the characters accepted here means escaping only {@code "} and {@code \} and
 * writing everything else as UTF-8 (no character below U+0020 and no surrogate reaches this
 * writer); integers of magnitude below 2<sup>53</sup> are written in plain decimal. The audit
 * journal writer uses it for every entry; the verifier keeps the general canonicalizer, so the two
 * check each other (a difference would make verification fail).
 */
final class FlatCanonicalizer {
  private static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

  private FlatCanonicalizer() {}

  /** The canonical bytes of {@code entry}, or null when it is not a flat object of this kind. */
  static byte[] canonicalize(ObjectNode entry) {
    String[] names = new String[entry.size()];
    int n = 0;
    for (Iterator<String> it = entry.fieldNames(); it.hasNext(); ) {
      names[n++] = it.next();
    }
    Arrays.sort(names);
    Out out = new Out(32 * names.length + 16);
    out.put('{');
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        out.put(',');
      }
      if (!out.string(names[i])) {
        return null;
      }
      out.put(':');
      JsonNode v = entry.get(names[i]);
      if (v.isTextual()) {
        if (!out.string(v.textValue())) {
          return null;
        }
      } else if (v.isIntegralNumber() && v.canConvertToLong()) {
        long x = v.longValue();
        if (x > MAX_SAFE_INTEGER || x < -MAX_SAFE_INTEGER) {
          return null;
        }
        out.ascii(Long.toString(x));
      } else {
        return null;
      }
    }
    out.put('}');
    return out.bytes();
  }

  /** A growable byte buffer. */
  private static final class Out {
    private byte[] buf;
    private int size;

    Out(int capacity) {
      buf = new byte[capacity];
    }

    void put(int b) {
      if (size == buf.length) {
        buf = Arrays.copyOf(buf, buf.length * 2);
      }
      buf[size++] = (byte) b;
    }

    void ascii(String s) {
      for (int i = 0; i < s.length(); i++) {
        put(s.charAt(i));
      }
    }

    /** Writes a JSON string; false if it holds a character this writer does not take. */
    boolean string(String s) {
      put('"');
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c < 0x20 || Character.isSurrogate(c)) {
          return false;
        } else if (c == '"' || c == '\\') {
          put('\\');
          put(c);
        } else if (c < 0x80) {
          put(c);
        } else if (c < 0x800) {
          put(0xc0 | (c >> 6));
          put(0x80 | (c & 0x3f));
        } else {
          put(0xe0 | (c >> 12));
          put(0x80 | ((c >> 6) & 0x3f));
          put(0x80 | (c & 0x3f));
        }
      }
      put('"');
      return true;
    }

    byte[] bytes() {
      return Arrays.copyOf(buf, size);
    }
  }
}
