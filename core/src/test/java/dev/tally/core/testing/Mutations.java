package dev.tally.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Fuzzing inputs for the parsers (issue 21): valid seeds bent by a few byte-level mutations (flips,
 * inserts of hostile tokens, deletions, duplications, truncation), so most inputs get past the
 * first byte and reach deep into a parser; plus the crashers kept as regression inputs under {@code
 * src/test/resources/fuzz/<target>/}. jqwik shrinks a failure to its smallest mutation list.
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

  /** Seeds bent by 0 to {@code maxSteps} mutations. */
  public static Arbitrary<byte[]> of(List<byte[]> seeds, int maxSteps) {
    Arbitrary<Step> step =
        Combinators.combine(
                Arbitraries.integers().between(0, 5),
                Arbitraries.doubles().between(0, 1),
                Arbitraries.integers())
            .as(Step::new);
    return Combinators.combine(Arbitraries.of(seeds), step.list().ofMinSize(0).ofMaxSize(maxSteps))
        .as(
            (seed, steps) -> {
              byte[] b = seed;
              for (Step s : steps) {
                b = s.apply(b);
              }
              return b;
            });
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
