package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.canonical.CanonicalizationException;
import dev.tally.core.canonical.Jcs;
import dev.tally.core.canonical.Utf8Scan;
import dev.tally.core.testing.Mutations;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fuzzing of core's one wire layer (issue 21): the request classifier and tools/call reader, the
 * SSE parser and the canonicalizer, on mutated valid inputs. Each run tries {@code
 * -Dtally.fuzz.tries} inputs (400 by default, seconds; raise it, and change {@code
 * -Dtally.fuzz.seed}, for a long run); crashers are kept under {@code
 * src/test/resources/fuzz/<target>/} and replayed by the tests below.
 */
class WireFuzzTest {
  private static final WireJson JSON = WireJson.defaults();
  private static final BodyClassifier CLASSIFIER = BodyClassifier.create(JSON);
  private static final ToolCallReader READER = ToolCallReader.create(JSON);
  private static final Jcs JCS = Jcs.create();

  private static final List<byte[]> BODIES =
      Mutations.seeds(
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"deploy\","
              + "\"arguments\":{\"title\":\"a/b\",\"n\":1.5e3,\"list\":[1,\"\\u00e9\",null]},"
              + "\"_meta\":{\"progressToken\":7,\"dev.tally/executionId\":\"act_x\"}}}",
          "[{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/list\"},"
              + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]",
          "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}",
          "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{\"uri\":\"x:/y\"}}");

  private static final List<byte[]> STREAMS =
      Mutations.seeds(
          "id: 1\nevent: message\ndata: {\"a\":1}\n\n",
          ": comment\r\nretry: 1000\r\ndata: line one\r\ndata: line two\r\n\r\n",
          "\uFEFFdata: x\n\nid: 2\ndata:\n\ndata: y",
          "data: " + "z".repeat(300) + "\n\n");

  /** The classifier and the reader answer every input with a value, never an exception. */
  @Test
  void theClassifierAndTheReaderNeverThrow() {
    Mutations.forEach(BODIES, 6, WireFuzzTest::classifyAndRead);
  }

  /** Whatever is classified as a message was strict UTF-8 (RFC 3629). */
  @Test
  void nothingAcceptedIsInvalidUtf8() {
    Mutations.forEach(
        BODIES,
        6,
        body -> {
          BodyScan s = CLASSIFIER.classify(body);
          if (s.shape() != BodyScan.Shape.REFUSED) {
            assertThat(Utf8Scan.scan(body, 0, body.length)).isNegative();
          }
        });
  }

  /** Events do not depend on how the stream is split into chunks. */
  @Test
  void theSseParserIsSplitInvariant() {
    Random splits = new Random(Mutations.firstSeed());
    Mutations.forEach(
        STREAMS,
        6,
        stream ->
            assertThat(parse(stream, new Random(splits.nextLong()), true))
                .isEqualTo(parse(stream, null, false)));
  }

  /** Canonical form refuses with its own exception, or is a fixed point of itself. */
  @Test
  void canonicalFormIsAFixedPoint() {
    Mutations.forEach(BODIES, 6, WireFuzzTest::canonicalizeTwice);
  }

  @Test
  void keptClassifierCrashersStayFixed() {
    Mutations.regressions("classifier").forEach(WireFuzzTest::classifyAndRead);
  }

  @Test
  void keptSseCrashersStayFixed() {
    for (byte[] b : Mutations.regressions("sse")) {
      assertThat(parse(b, new Random(1), true)).isEqualTo(parse(b, null, false));
    }
  }

  @Test
  void keptCanonicalizerCrashersStayFixed() {
    Mutations.regressions("canonicalizer").forEach(WireFuzzTest::canonicalizeTwice);
  }

  private static void classifyAndRead(byte[] body) {
    BodyScan s = CLASSIFIER.classify(body);
    assertThat(s).isNotNull();
    ToolCallReader.Read r = READER.read(body, 0, body.length);
    assertThat(r).isNotNull();
    if (s.shape() != BodyScan.Shape.REFUSED && r instanceof ToolCallReader.Ok ok) {
      ToolCallEnvelope e = ok.envelope();
      assertThat(e.tool()).isNotEmpty();
      if (e.arguments() != null) {
        try {
          JCS.canonicalize(e.arguments());
        } catch (CanonicalizationException refused) {
          assertThat(refused.getMessage()).isNotBlank();
        }
      }
    }
  }

  private static void canonicalizeTwice(byte[] doc) {
    byte[] once;
    try {
      once = JCS.canonicalize(doc);
    } catch (CanonicalizationException refused) {
      assertThat(refused.getMessage()).isNotBlank();
      return;
    }
    assertThat(JCS.canonicalize(once)).isEqualTo(once);
  }

  /** The events as comparable text (SseEvent compares by identity). */
  private static List<String> parse(byte[] stream, Random split, boolean end) {
    List<String> events = new ArrayList<>();
    SseParser p =
        SseParser.create(
            e ->
                events.add(
                    e.id()
                        + "|"
                        + e.type()
                        + "|"
                        + e.retry()
                        + "|"
                        + e.truncated()
                        + "|"
                        + java.util.HexFormat.of().formatHex(e.data())),
            256);
    if (split == null) {
      p.feed(stream, 0, stream.length);
    } else {
      int i = 0;
      while (i < stream.length) {
        int n = 1 + split.nextInt(Math.min(16, stream.length - i));
        p.feed(stream, i, n);
        i += n;
      }
    }
    p.end();
    return events;
  }
}
