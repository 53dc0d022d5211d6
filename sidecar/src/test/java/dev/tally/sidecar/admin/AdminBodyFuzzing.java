package dev.tally.sidecar.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tally.core.canonical.Jcs;
import dev.tally.core.console.StrictBody;
import dev.tally.core.console.ToolResultShape;
import dev.tally.core.testing.FuzzBudget;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Coverage-guided fuzzing (Jazzer) of the admin request parser (issue 21): {@link StrictBody} and
 * {@link ToolResultShape}. Every {@code $} of the input is replaced by a marker value before
 * parsing. Properties: every body gets a value or a problem, never an exception; a problem names a
 * member or an offset and never echoes the marker from a value; an accepted body has only the
 * allowed members; an accepted {@code result} that has an MCP result's shape is written back as
 * JSON that parses strictly to the same tree. How to run it: {@code
 * core/src/test/resources/fuzz/README.md}.
 */
class AdminBodyFuzzing {
  private static final String MARKER = "SECRETMARKER";
  private static final List<String> RESOLVE = List.of("outcome", "result", "note");
  private static final Jcs JCS = Jcs.create();

  @FuzzTest(maxDuration = FuzzBudget.CI)
  void everyBodyGetsAValueOrAProblemThatQuotesNoValue(byte[] input) {
    byte[] body = withMarker(input);
    StrictBody.Parsed p = StrictBody.object(body, true, RESOLVE);
    assertThat(p).isNotNull();
    if (p.object() == null) {
      assertThat(p.problem()).isNotBlank();
      // Member names may be named (quoted, or in the JSON pointer that ends a parser's message
      // after " at "); values never.
      String withoutNames = p.problem().replaceFirst("(?s) at /.*$", "");
      if (!withoutNames.contains("member")) {
        assertThat(withoutNames).doesNotContain(MARKER);
      }
      return;
    }
    assertThat(p.problem()).isNull();
    p.object().fieldNames().forEachRemaining(n -> assertThat(RESOLVE).contains(n));
    if (!p.object().has("result")) {
      return;
    }
    String shape = ToolResultShape.problem(p.object().get("result"));
    if (shape != null) {
      assertThat(shape).startsWith("result").doesNotContain(MARKER);
      return;
    }
    byte[] written = StrictBody.bytes(p.object().get("result"));
    assertThat(JCS.parse(written)).isEqualTo(p.object().get("result"));
  }

  private static byte[] withMarker(byte[] input) {
    String s = new String(input, StandardCharsets.ISO_8859_1);
    if (s.indexOf('$') < 0) {
      return input;
    }
    return s.replace("$", MARKER).getBytes(StandardCharsets.ISO_8859_1);
  }
}
