package dev.tally.core.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.canonical.CanonicalizationException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link FlatEntry} writes RFC 8785 bytes: those of {@link Canonicalizer#jcs()} for its tree. */
class FlatEntryTest {
  private static final Canonicalizer JCS = Canonicalizer.jcs();
  private static final long MAX = FlatEntry.MAX_SAFE_INTEGER;

  /**
   * One or more characters for each path of the writer: ASCII written as is, escaped by name, as
   * {@code \}{@code u00xx}, DEL (not escaped), two- and three-byte UTF-8 with their bounds,
   * characters on either side of the surrogates, and surrogate pairs (four-byte UTF-8).
   */
  private static final String[] PIECES = {
    "a",
    "Z",
    "0",
    " ",
    "_",
    "/",
    "~",
    "\u007f",
    "\"",
    "\\",
    "\b",
    "\t",
    "\n",
    "\f",
    "\r",
    "\u0000",
    "\u0001",
    "\u000b",
    "\u001a",
    "\u001f",
    "\u0080",
    "\u00e9",
    "\u00a0",
    "\u07ff",
    "\u0800",
    "\u20ac",
    "\u6771",
    "\ud7ff",
    "\ue000",
    "\uffff",
    "\ud83d\ude02",
    "\ud800\udc00",
    "\udbff\udfff"
  };

  private static final String[] LONE = {"\ud800", "\udbff", "\udc00", "\udfff"};

  /** What {@code e} writes after one byte already in a small buffer, or null. */
  private static byte[] written(FlatEntry e) {
    LineBuffer out = new LineBuffer(2);
    out.put((byte) 'x');
    boolean ok = e.writeCanonical(out);
    if (!ok) {
      assertThat(out.size()).as("a refused entry leaves the buffer as it was").isEqualTo(1);
      return null;
    }
    return out.toByteArray(1);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void writesTheRfc8785FormOfStringsIntegersAndHashes() {
    byte[] hash = new byte[32];
    hash[0] = (byte) 0xab;
    hash[31] = 0x0f;
    FlatEntry e =
        new FlatEntry(4)
            .put("type", "q\"b\\s/\u007f")
            .put("ctl", "\b\t\n\f\r\u0000\u000b\u001f")
            .put("", "")
            .put("min", -MAX)
            .put("max", MAX)
            .put("zero", 0)
            .put("é", "Zoë 東京 😂")
            .putHash("prev", hash);
    String expected =
        "{\"\":\"\",\"ctl\":\"\\b\\t\\n\\f\\r\\u0000\\u000b\\u001f\",\"max\":9007199254740991,"
            + "\"min\":-9007199254740991,\"prev\":\"ab"
            + "0".repeat(60)
            + "0f\",\"type\":\"q\\\"b\\\\s/\u007f\",\"zero\":0,\"é\":\"Zoë 東京 😂\"}";
    assertThat(text(written(e))).isEqualTo(expected);
    assertThat(written(e)).isEqualTo(JCS.canonicalize(e.toTree()));
  }

  @Test
  void membersAreSortedByUtf16CodeUnitsWhateverTheOrderTheyWereAddedIn() {
    // U+E000 sorts after a surrogate pair by UTF-16 code units, before it by code points.
    List<String> names =
        new ArrayList<>(
            List.of("péché", "peach", "pêche", "\u20ac", "😂", "\ue000", "", "v", "seq", "prev"));
    Random rnd = new Random(3);
    byte[] first = null;
    for (int round = 0; round < 50; round++) {
      Collections.shuffle(names, rnd);
      FlatEntry e = new FlatEntry(1);
      for (String n : names) {
        e.put(n, n.length());
      }
      byte[] b = written(e);
      if (first == null) {
        first = b;
        assertThat(text(b))
            .isEqualTo(
                "{\"\":0,\"peach\":5,\"prev\":4,\"péché\":5,\"pêche\":5,\"seq\":3,\"v\":1,"
                    + "\"€\":1,\"😂\":2,\"\ue000\":1}");
        assertThat(b).isEqualTo(JCS.canonicalize(e.toTree()));
      }
      assertThat(b).isEqualTo(first);
    }
  }

  @Test
  void randomEntriesMatchTheGeneralCanonicalizer() {
    Random rnd = new Random(8785);
    int compared = 0;
    int refused = 0;
    for (int round = 0; round < 5_000; round++) {
      FlatEntry e = new FlatEntry(rnd.nextInt(4));
      Set<String> names = new HashSet<>();
      boolean lone = false;
      boolean large = false;
      int members = rnd.nextInt(16);
      for (int m = 0; m < members; m++) {
        boolean withLone = rnd.nextInt(200) == 0;
        String name = random(rnd, 8, withLone);
        if (!names.add(name)) {
          continue;
        }
        lone |= withLone;
        switch (rnd.nextInt(4)) {
          case 0, 1 -> {
            boolean valueWithLone = rnd.nextInt(100) == 0;
            lone |= valueWithLone;
            e.put(name, random(rnd, 40, valueWithLone));
          }
          case 2 -> {
            long x = integer(rnd);
            large |= x > MAX || x < -MAX;
            e.put(name, x);
          }
          default -> {
            byte[] hash = new byte[32];
            rnd.nextBytes(hash);
            e.putHash(name, hash);
          }
        }
      }
      byte[] fast = written(e);
      if (lone || large) {
        assertThat(fast).as("round %d", round).isNull();
        refused++;
        if (lone) {
          assertThatThrownBy(() -> JCS.canonicalize(e.toTree()))
              .isInstanceOf(CanonicalizationException.class);
        }
      } else {
        assertThat(fast).as("round %d", round).isEqualTo(JCS.canonicalize(e.toTree()));
        compared++;
      }
    }
    assertThat(compared).isGreaterThan(3_500);
    assertThat(refused).isGreaterThan(100);
  }

  @Test
  void aLoneSurrogateOrAnIntegerBeyondTwoToThe53IsLeftToTheGeneralCanonicalizer() {
    for (String lone : LONE) {
      assertThat(written(new FlatEntry(1).put("k", "a" + lone))).isNull();
      assertThat(written(new FlatEntry(1).put("k", lone + "a"))).isNull();
      assertThat(written(new FlatEntry(1).put("a" + lone, "v"))).isNull();
    }
    assertThat(written(new FlatEntry(1).put("k", "\udc00\ud800"))).isNull();
    for (long x : new long[] {MAX + 1, -MAX - 1, Long.MAX_VALUE, Long.MIN_VALUE}) {
      assertThat(written(new FlatEntry(1).put("a", "ok").put("k", x))).isNull();
    }
  }

  @Test
  void aNameGivenTwiceIsRefused() {
    FlatEntry e = new FlatEntry(4).put("a", 1).put("c", 2);
    assertThatThrownBy(() -> e.put("c", "again")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> e.put("a", "again"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("duplicate member \"a\"");
    assertThat(text(written(e))).isEqualTo("{\"a\":1,\"c\":2}");
  }

  @Test
  void anEmptyEntryIsAnEmptyObject() {
    assertThat(text(written(new FlatEntry(0)))).isEqualTo("{}");
  }

  @Test
  void aHashIsCopiedWhenAdded() {
    byte[] hash = new byte[32];
    FlatEntry e = new FlatEntry(1).putHash("prev", hash);
    hash[0] = 1;
    assertThat(text(written(e))).isEqualTo("{\"prev\":\"" + "0".repeat(64) + "\"}");
    assertThatThrownBy(() -> e.putHash("short", new byte[31]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static long integer(Random rnd) {
    // One in twenty beyond 2^53 - 1.
    return switch (rnd.nextInt(40)) {
      case 0 -> MAX - rnd.nextInt(3);
      case 1 -> -MAX + rnd.nextInt(3);
      case 2, 3, 4, 5 -> rnd.nextInt(21) - 10;
      case 6 -> rnd.nextBoolean() ? MAX + 1 + rnd.nextInt(3) : -MAX - 1 - rnd.nextInt(3);
      case 7 -> rnd.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE;
      default -> rnd.nextLong() >> (11 + rnd.nextInt(53));
    };
  }

  /** Up to {@code maxPieces} pieces; with {@code lone}, one lone surrogate somewhere. */
  private static String random(Random rnd, int maxPieces, boolean lone) {
    StringBuilder b = new StringBuilder();
    int n = rnd.nextInt(maxPieces + 1);
    for (int i = 0; i < n; i++) {
      // Mostly plain ASCII, as real entries are, so that the ASCII fast path meets the others.
      b.append(
          rnd.nextInt(3) == 0
              ? PIECES[rnd.nextInt(PIECES.length)]
              : String.valueOf((char) (0x20 + rnd.nextInt(0x5f))));
    }
    if (lone) {
      // The pieces hold surrogates in pairs only: one more leaves at least one unpaired.
      b.insert(rnd.nextInt(b.length() + 1), LONE[rnd.nextInt(LONE.length)]);
    }
    return b.toString();
  }
}
