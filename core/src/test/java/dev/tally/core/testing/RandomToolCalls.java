package dev.tally.core.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded random {@code tools/call} request bodies spelled the way no serializer would: odd
 * whitespace, members in any order, escapes where none are needed, raw and escaped non-ASCII
 * (astral-plane characters too), numbers no double holds ({@code 1234567890123456789}, {@code
 * 12345678901234567.89}), trailing zeros, exponents, {@code -0}, and {@code params._meta} absent,
 * null, empty, or already holding members (a client-sent {@code dev.tally/executionId} among them).
 * Every body is valid strict JSON without duplicate members; the arguments of call {@code seq}
 * carry {@code "seq":"<seq>"} so no two calls have equal arguments.
 */
public final class RandomToolCalls {
  private static final String[] NAMES = {
    "amount",
    "a",
    "b",
    "Z",
    "to",
    "from",
    "memo",
    "items",
    "_meta",
    "x y",
    "ключ",
    "名前",
    "é",
    "\uD83D\uDE00",
    "tab\there",
    "quote\"d",
    "back\\slash",
    "",
    "0",
    "\u2028",
    "\u007f"
  };
  private static final String[] EDGE_NUMBERS = {
    "-0",
    "0.0",
    "-0.0",
    "0e5",
    "1.50",
    "1E2",
    "1e+2",
    "1e-7",
    "0.000001",
    "1e21",
    "1E300",
    "0.1000000000000000000001",
    "12345678901234567.89",
    "1234567890123456789",
    "1234567890123456790",
    "9007199254740993",
    "-9007199254740993",
    "333333333.33333329",
    "1.7976931348623157e308",
    "5e-324",
    "3e-324",
    "4.9E-324",
    "123456789012345678901234567890",
    "-1234567890123456789.000",
    "100000000000000000000000",
    "0.30000000000000004",
    "0.1",
    "2.5e-3"
  };

  private final Random r;

  public RandomToolCalls(long seed) {
    this.r = new Random(seed);
  }

  /** A {@code tools/call} of {@code tool} with JSON-RPC id {@code seq} and random arguments. */
  public String call(String tool, long seq) {
    List<String> params = new ArrayList<>();
    params.add(member("\"name\"", string(tool, false)));
    params.add(member("\"arguments\"", arguments(seq)));
    String meta = meta();
    if (meta != null) {
      params.add(member("\"_meta\"", meta));
    }
    List<String> envelope = new ArrayList<>();
    envelope.add(member("\"jsonrpc\"", "\"2.0\""));
    envelope.add(member("\"id\"", r.nextBoolean() ? Long.toString(seq) : "\"rq-" + seq + "\""));
    envelope.add(member("\"method\"", "\"tools/call\""));
    envelope.add(member("\"params\"", object(params)));
    return ws() + object(envelope) + ws();
  }

  /** Random arguments: an object with {@code "seq":"<seq>"} and up to six more members. */
  public String arguments(long seq) {
    List<String> members = new ArrayList<>();
    members.add(member(string("seq", true), string(Long.toString(seq), true)));
    List<String> used = new ArrayList<>(List.of("seq"));
    for (int i = r.nextInt(7); i > 0; i--) {
      String name = NAMES[r.nextInt(NAMES.length)];
      if (!used.contains(name)) {
        used.add(name);
        members.add(member(string(name, true), value(3)));
      }
    }
    return object(members);
  }

  /** A number literal: an edge case, a long integer, a long decimal, an exponent form. */
  public String number() {
    switch (r.nextInt(8)) {
      case 0:
        return Integer.toString(r.nextInt(2001) - 1000);
      case 1:
      case 2:
        return EDGE_NUMBERS[r.nextInt(EDGE_NUMBERS.length)];
      case 3:
        return sign() + digits(16 + r.nextInt(25), false);
      case 4:
        return sign()
            + (r.nextBoolean() ? "0" : digits(1 + r.nextInt(20), false))
            + "."
            + digits(1 + r.nextInt(25), true);
      case 5:
        return sign()
            + digits(1, false)
            + (r.nextBoolean() ? "." + digits(1 + r.nextInt(25), true) : "")
            + (r.nextBoolean() ? "e" : "E")
            + new String[] {"", "+", "-"}[r.nextInt(3)]
            + r.nextInt(300);
      case 6:
        return Double.toString(r.nextGaussian() * Math.pow(10, r.nextInt(40) - 20));
      default:
        return new java.math.BigDecimal(r.nextDouble() * 1000).toString();
    }
  }

  private String meta() {
    switch (r.nextInt(6)) {
      case 0:
        return null;
      case 1:
        return "null";
      case 2:
        return "{" + ws() + "}";
      case 3:
        return object(List.of(member("\"progressToken\"", Integer.toString(r.nextInt(100)))));
      case 4:
        return object(List.of(member("\"dev.tally/executionId\"", "\"act_sent_by_client\"")));
      default:
        return object(
            List.of(
                member("\"progressToken\"", string("p-" + r.nextInt(100), true)),
                member("\"dev.tally/executionId\"", "\"client-" + r.nextInt(100) + "\""),
                member("\"other\"", value(2))));
    }
  }

  private String value(int depth) {
    switch (r.nextInt(depth <= 0 ? 4 : 6)) {
      case 0:
        return new String[] {"true", "false", "null"}[r.nextInt(3)];
      case 1:
      case 2:
        return number();
      case 3:
        return string(text(), true);
      case 4:
        List<String> elements = new ArrayList<>();
        for (int i = r.nextInt(4); i > 0; i--) {
          elements.add(value(depth - 1));
        }
        return "[" + ws() + String.join(ws() + "," + ws(), elements) + ws() + "]";
      default:
        List<String> members = new ArrayList<>();
        List<String> used = new ArrayList<>();
        for (int i = r.nextInt(4); i > 0; i--) {
          String name = NAMES[r.nextInt(NAMES.length)];
          if (!used.contains(name)) {
            used.add(name);
            members.add(member(string(name, true), value(depth - 1)));
          }
        }
        return object(members);
    }
  }

  private String text() {
    String[] pieces = {
      "a",
      "Zz",
      "09",
      " ",
      "/",
      "\"",
      "\\",
      "\n",
      "\t",
      "\u0000",
      "\u0001",
      "\u001f",
      "\u007f",
      "é",
      "ö",
      "中",
      "€",
      "\u2028",
      "\uFEFF",
      "\uD83D\uDE00",
      "\uDBFF\uDFFF",
      "1e400",
      "-0"
    };
    StringBuilder sb = new StringBuilder();
    for (int i = r.nextInt(6); i > 0; i--) {
      sb.append(pieces[r.nextInt(pieces.length)]);
    }
    return sb.toString();
  }

  /** {@code s} as a JSON string; with {@code escapeAtWill}, characters are escaped at random. */
  private String string(String s, boolean escapeAtWill) {
    StringBuilder sb = new StringBuilder("\"");
    boolean escapedHigh = false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean must = c < 0x20 || c == '"' || c == '\\';
      // A surrogate pair is two escapes or one raw character, never half of each.
      boolean escape =
          Character.isLowSurrogate(c) ? escapedHigh : must || escapeAtWill && r.nextInt(5) == 0;
      escapedHigh = Character.isHighSurrogate(c) && escape;
      if (!escape) {
        sb.append(c);
      } else if (c == '"' || c == '\\' || c == '/' && r.nextBoolean()) {
        sb.append('\\').append(c);
      } else if (c == '\n' && r.nextBoolean()) {
        sb.append("\\n");
      } else {
        sb.append(String.format(r.nextBoolean() ? "\\u%04x" : "\\u%04X", (int) c));
      }
    }
    return sb.append('"').toString();
  }

  private String member(String name, String value) {
    return name + ws() + ":" + ws() + value;
  }

  private String object(List<String> members) {
    List<String> shuffled = new ArrayList<>(members);
    java.util.Collections.shuffle(shuffled, r);
    return "{" + ws() + String.join(ws() + "," + ws(), shuffled) + ws() + "}";
  }

  private String sign() {
    return r.nextInt(3) == 0 ? "-" : "";
  }

  /** {@code n} random digits, the first non-zero unless {@code leadingZeroOk}. */
  private String digits(int n, boolean leadingZeroOk) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append((char) ('0' + (i == 0 && !leadingZeroOk ? 1 + r.nextInt(9) : r.nextInt(10))));
    }
    return sb.toString();
  }

  private String ws() {
    StringBuilder sb = new StringBuilder();
    for (int i = r.nextInt(5) - 2; i > 0; i--) {
      sb.append(" \t\r\n".charAt(r.nextInt(4)));
    }
    return sb.toString();
  }
}
