package dev.tally.core.audit;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.Objects;

/**
 * One journal entry as Tally writes it: a flat JSON object of strings, integers and SHA-256 hashes
 * (written as lowercase hex strings), and its RFC 8785 canonical bytes, written without a JSON
 * tree. Members are added with the {@code put} methods (a name given twice is refused) and written
 * by {@link #writeCanonical(LineBuffer)}. Not thread-safe; one instance per entry.
 *
 * <p>Implementation note (RFC 8785 §3.2): members are kept sorted by the UTF-16 code units of their
 * names ({@link String#compareTo}, §3.2.3); a member that sorts after all others costs one
 * comparison (the builders add members in that order), any other is placed by binary search.
 * Strings are written as ECMAScript's {@code JSON.stringify} does (§3.2.2.2): {@code "} and {@code
 * \} escaped with a backslash, U+0008, U+0009, U+000A, U+000C and U+000D as {@code \b \t \n \f \r},
 * other characters below U+0020 as {@code \}{@code u00xx} in lowercase hex, everything else as
 * UTF-8 (a surrogate pair as one four-byte sequence); a leading run of ASCII that needs no escape
 * is copied without further case analysis. Integers of magnitude up to 2<sup>53</sup>−1 are written
 * in plain decimal, as ECMAScript's {@code Number::toString} writes them (§3.2.2.3).
 *
 * <p>A lone surrogate (which RFC 8785 refuses) or an integer beyond 2<sup>53</sup>−1 (which it
 * writes as the nearest double) has no form here: {@link #writeCanonical} returns {@code false} and
 * the journal canonicalizes {@link #toTree()} with its general {@link Canonicalizer}, which refuses
 * or writes it exactly as before. Tally's entries hold neither ({@link Text} cleans strings). The
 * verifier canonicalizes every line with the general canonicalizer, so a difference between the two
 * writers fails verification.
 */
final class FlatEntry {
  static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

  /**
   * Per ASCII character: 0 written as is, {@code 'u'} as {@code \}{@code u00xx}, else {@code \x}.
   */
  private static final byte[] ESCAPE = new byte[128];

  private static final byte[] HEX = {
    '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'
  };

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

  // Sorted by name. A value is a String, a byte[] (a hash) or null (the integer in numbers).
  private String[] names;
  private Object[] values;
  private long[] numbers;
  private int size;

  /** An empty entry with room for {@code capacity} members (more are made room for). */
  FlatEntry(int capacity) {
    names = new String[Math.max(1, capacity)];
    values = new Object[names.length];
    numbers = new long[names.length];
  }

  /** Adds a string member; an absent value is left out by the caller, never written as null. */
  FlatEntry put(String name, String value) {
    insert(name, Objects.requireNonNull(value, name), 0);
    return this;
  }

  FlatEntry put(String name, long value) {
    insert(name, null, value);
    return this;
  }

  /** Adds a SHA-256 hash, written as 64 lowercase hex digits. */
  FlatEntry putHash(String name, byte[] sha256) {
    if (sha256.length != Hashes.SHA256_BYTES) {
      throw new IllegalArgumentException(name + ": a SHA-256 hash has 32 bytes");
    }
    insert(name, sha256.clone(), 0);
    return this;
  }

  private void insert(String name, Object value, long number) {
    Objects.requireNonNull(name, "name");
    int n = size;
    if (n == names.length) {
      int capacity = 2 * n;
      names = Arrays.copyOf(names, capacity);
      values = Arrays.copyOf(values, capacity);
      numbers = Arrays.copyOf(numbers, capacity);
    }
    int at = n;
    if (n > 0 && names[n - 1].compareTo(name) >= 0) {
      at = position(name, n);
      System.arraycopy(names, at, names, at + 1, n - at);
      System.arraycopy(values, at, values, at + 1, n - at);
      System.arraycopy(numbers, at, numbers, at + 1, n - at);
    }
    names[at] = name;
    values[at] = value;
    numbers[at] = number;
    size = n + 1;
  }

  /** Where {@code name} goes among the first {@code n} names; refuses a name already there. */
  private int position(String name, int n) {
    int lo = 0;
    int hi = n - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int c = names[mid].compareTo(name);
      if (c < 0) {
        lo = mid + 1;
      } else if (c > 0) {
        hi = mid - 1;
      } else {
        throw new IllegalArgumentException("duplicate member \"" + name + "\"");
      }
    }
    return lo;
  }

  /**
   * Appends the canonical bytes to {@code out}; returns {@code false}, leaving {@code out} as it
   * was, for an entry that has no canonical form here (see the class comment).
   */
  boolean writeCanonical(LineBuffer out) {
    // Room for the longest form (six bytes per char), so that the loop below writes unchecked.
    long bound = 2;
    for (int i = 0; i < size; i++) {
      Object v = values[i];
      bound += 4 + 6L * names[i].length();
      bound += v instanceof String s ? 2 + 6L * s.length() : v == null ? 17 : 66;
    }
    byte[] b = out.reserve(bound);
    int p = out.size();
    b[p++] = '{';
    for (int i = 0; i < size; i++) {
      if (i > 0) {
        b[p++] = ',';
      }
      p = string(b, p, names[i]);
      if (p < 0) {
        return false;
      }
      b[p++] = ':';
      Object v = values[i];
      if (v instanceof String s) {
        p = string(b, p, s);
      } else if (v == null) {
        p = integer(b, p, numbers[i]);
      } else {
        p = hash(b, p, (byte[]) v);
      }
      if (p < 0) {
        return false;
      }
    }
    b[p++] = '}';
    out.size(p);
    return true;
  }

  /** Writes {@code s} as a JSON string at {@code b[p]}; the end, or -1 for a lone surrogate. */
  private static int string(byte[] b, int p, String s) {
    int n = s.length();
    b[p++] = '"';
    int i = 0;
    for (; i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x80 || ESCAPE[c] != 0) {
        break;
      }
      b[p++] = (byte) c;
    }
    for (; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        byte e = ESCAPE[c];
        if (e == 0) {
          b[p++] = (byte) c;
        } else if (e == 'u') {
          b[p++] = '\\';
          b[p++] = 'u';
          b[p++] = '0';
          b[p++] = '0';
          b[p++] = HEX[c >> 4];
          b[p++] = HEX[c & 0xf];
        } else {
          b[p++] = '\\';
          b[p++] = e;
        }
      } else if (c < 0x800) {
        b[p++] = (byte) (0xc0 | (c >> 6));
        b[p++] = (byte) (0x80 | (c & 0x3f));
      } else if (!Character.isSurrogate(c)) {
        b[p++] = (byte) (0xe0 | (c >> 12));
        b[p++] = (byte) (0x80 | ((c >> 6) & 0x3f));
        b[p++] = (byte) (0x80 | (c & 0x3f));
      } else if (Character.isHighSurrogate(c)
          && i + 1 < n
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        int cp = Character.toCodePoint(c, s.charAt(++i));
        b[p++] = (byte) (0xf0 | (cp >> 18));
        b[p++] = (byte) (0x80 | ((cp >> 12) & 0x3f));
        b[p++] = (byte) (0x80 | ((cp >> 6) & 0x3f));
        b[p++] = (byte) (0x80 | (cp & 0x3f));
      } else {
        return -1;
      }
    }
    b[p++] = '"';
    return p;
  }

  /** Writes {@code x} in decimal at {@code b[p]}; the end, or -1 beyond ±(2<sup>53</sup>−1). */
  private static int integer(byte[] b, int p, long x) {
    if (x > MAX_SAFE_INTEGER || x < -MAX_SAFE_INTEGER) {
      return -1;
    }
    if (x < 0) {
      b[p++] = '-';
      x = -x;
    }
    int digits = 1;
    for (long t = x; t >= 10; t /= 10) {
      digits++;
    }
    int end = p + digits;
    for (int q = end - 1; q >= p; q--) {
      b[q] = (byte) ('0' + (int) (x % 10));
      x /= 10;
    }
    return end;
  }

  /** Writes {@code hash} as a string of lowercase hex digits at {@code b[p]}; the end. */
  private static int hash(byte[] b, int p, byte[] hash) {
    b[p++] = '"';
    for (byte x : hash) {
      b[p++] = HEX[(x >> 4) & 0xf];
      b[p++] = HEX[x & 0xf];
    }
    b[p++] = '"';
    return p;
  }

  /** The entry as a JSON tree, for the general canonicalizer. */
  ObjectNode toTree() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    for (int i = 0; i < size; i++) {
      Object v = values[i];
      if (v instanceof String s) {
        o.put(names[i], s);
      } else if (v == null) {
        o.put(names[i], numbers[i]);
      } else {
        o.put(names[i], Hashes.hex((byte[]) v));
      }
    }
    return o;
  }
}
