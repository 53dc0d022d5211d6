package dev.tally.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Fuzzing inputs for the parsers (issue 21): valid seeds bent by a few byte-level mutations (flips,
 * inserts of hostile tokens, deletions, duplications, truncation), so most inputs get past the
 * first byte and reach deep into a parser; plus the crashers kept as regression inputs under {@code
 * src/test/resources/fuzz/<target>/}. Each input comes from its own seeded {@link Random}, so a
 * failure replays exactly; plain JUnit, no property-testing library.
 */
public final class Mutations {
  /** Byte sequences that have broken parsers: overlong UTF-8, surrogates, huge numbers, framing. */
  private static final List<byte[]> TOKENS =
      Stream.of(
              new byte[] {(byte) 0xC0, (byte) 0xAF},
              new byte[] {(byte) 0xE0, (byte) 0x80, (byte) 0xAF},
              new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
              new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
              new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF},
              new byte[] {0},
              bytes("\\ud800"),
              bytes("\\udc00\\ud800"),
              bytes("1e400"),
              bytes("-0"),
              bytes("1" + "0".repeat(400)),
              bytes("[[[[[[[[[[[[[[[["),
              bytes("}}}]]]"),
              bytes("\"\""),
              bytes(",\"id\":1"),
              bytes("\r\n\r\n"),
              bytes("\n\n"),
              bytes("data:"),
              bytes("id:\u0000"),
              bytes(":"),
              bytes("\r"),
              new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0x7f},
              new byte[] {(byte) 0x80, 0, 0, 0})
          .toList();

  private Mutations() {}

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** One mutation: what, where (a fraction of the length), and a parameter. */
  private record Step(int kind, double at, int param) {
    byte[] apply(byte[] in) {
      int pos = in.length == 0 ? 0 : (int) Math.min(in.length - 1, at * in.length);
      switch (kind) {
        case 0: // flip a byte
          if (in.length == 0) {
            return in;
          }
          byte[] f = in.clone();
          f[pos] ^= (byte) (1 << (param & 7));
          return f;
        case 1: // insert a hostile token
          return insert(in, pos, TOKENS.get(Math.floorMod(param, TOKENS.size())));
        case 2: // delete a range
          int n = Math.min(in.length - pos, 1 + Math.floorMod(param, 16));
          byte[] d = new byte[in.length - n];
          System.arraycopy(in, 0, d, 0, pos);
          System.arraycopy(in, pos + n, d, pos, in.length - pos - n);
          return d;
        case 3: // duplicate a range
          int m = Math.min(in.length - pos, 1 + Math.floorMod(param, 32));
          return insert(in, pos, Arrays.copyOfRange(in, pos, pos + m));
        case 4: // truncate
          return Arrays.copyOf(in, pos);
        default: // a random byte
          return insert(in, pos, new byte[] {(byte) param});
      }
    }

    private static byte[] insert(byte[] in, int pos, byte[] what) {
      byte[] out = new byte[in.length + what.length];
      System.arraycopy(in, 0, out, 0, pos);
      System.arraycopy(what, 0, out, pos, what.length);
      System.arraycopy(in, pos, out, pos + what.length, in.length - pos);
      return out;
    }
  }

  /** How many inputs each fuzz property tries: {@code -Dtally.fuzz.tries} (default 400). */
  public static int tries() {
    return Integer.getInteger("tally.fuzz.tries", 400);
  }

  /**
   * The first seed of a run: {@code -Dtally.fuzz.seed} (default a fixed one, so every build tries
   * the same inputs; a long run with another seed tries new ones).
   */
  public static long firstSeed() {
    return Long.getLong("tally.fuzz.seed", 20261202L);
  }

  /** Something that must hold for one input. */
  @FunctionalInterface
  public interface Check {
    void accept(byte[] input) throws Exception;
  }

  /**
   * Runs {@code check} on {@link #tries()} inputs, each a seed bent by 0 to {@code maxSteps}
   * mutations drawn from its own {@link Random} ({@link #firstSeed()} + its index). A failure names
   * the run seed, the index and the input in hex, so it can be replayed with {@code
   * -Dtally.fuzz.seed} or kept under {@code src/test/resources/fuzz/<target>/}.
   */
  public static void forEach(List<byte[]> seeds, int maxSteps, Check check) {
    long first = firstSeed();
    int n = tries();
    for (int i = 0; i < n; i++) {
      byte[] input = mutate(seeds, maxSteps, new Random(first + i));
      try {
        check.accept(input);
      } catch (Throwable t) {
        throw new AssertionError(
            "fuzz input #"
                + i
                + " of -Dtally.fuzz.seed="
                + first
                + " failed ("
                + t
                + "); input (hex): "
                + HexFormat.of().formatHex(input),
            t);
      }
    }
  }

  /** One input: a seed bent by 0 to {@code maxSteps} mutations drawn from {@code r}. */
  public static byte[] mutate(List<byte[]> seeds, int maxSteps, Random r) {
    byte[] b = seeds.get(r.nextInt(seeds.size()));
    int steps = r.nextInt(maxSteps + 1);
    for (int i = 0; i < steps; i++) {
      b = new Step(r.nextInt(6), r.nextDouble(), r.nextInt()).apply(b);
    }
    return b;
  }

  /** UTF-8 bytes of each string. */
  public static List<byte[]> seeds(String... texts) {
    List<byte[]> out = new ArrayList<>();
    for (String t : texts) {
      out.add(bytes(t));
    }
    return out;
  }

  /**
   * The kept regression inputs of {@code target} ({@code src/test/resources/fuzz/<target>/*}, each
   * file one input); an empty list when none were kept yet.
   */
  public static List<byte[]> regressions(String target) {
    Path dir = Path.of("src", "test", "resources", "fuzz", target);
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      List<byte[]> out = new ArrayList<>();
      for (Path p : files.sorted().toList()) {
        if (!p.getFileName().toString().endsWith(".md")) {
          out.add(Files.readAllBytes(p));
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
