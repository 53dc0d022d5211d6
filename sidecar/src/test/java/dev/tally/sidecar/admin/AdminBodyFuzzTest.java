package dev.tally.sidecar.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.console.StrictBody;
import dev.tally.core.console.ToolResultShape;
import dev.tally.core.testing.Mutations;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Fuzzing of the admin request parser (issue 21): {@link StrictBody} and {@link ToolResultShape}
 * answer every body with a value or a problem that names a member, never an exception, and a
 * refusal never echoes a marker value from the body. Bounded by {@code -Dtally.fuzz.tries};
 * crashers kept under {@code src/test/resources/fuzz/admin/}.
 */
class AdminBodyFuzzTest {
  private static final String MARKER = "SECRETMARKER";
  private static final List<String> RESOLVE = List.of("outcome", "result", "note");
  private static final List<byte[]> SEEDS =
      Mutations.seeds(
          "{\"outcome\":\"completed\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\""
              + MARKER
              + "\"}],\"isError\":false,\"structuredContent\":{\"k\":\""
              + MARKER
              + "\"}},\"note\":\"by hand\"}",
          "{\"outcome\":\"failed\"}",
          "{\"result\":{\"content\":[{\"type\":\"image\",\"data\":\"AAAA\",\"mimeType\":\"image/png\"},"
              + "{\"type\":\"resource\",\"resource\":{\"uri\":\"x:/"
              + MARKER
              + "\",\"text\":\"t\"}}]}}",
          "");

  @Test
  void everyBodyGetsAValueOrAProblemThatQuotesNoValue() {
    Mutations.forEach(SEEDS, 6, AdminBodyFuzzTest::check);
  }

  @Test
  void keptCrashersStayFixed() {
    Mutations.regressions("admin").forEach(AdminBodyFuzzTest::check);
  }

  private static void check(byte[] body) {
    StrictBody.Parsed p = StrictBody.object(body, true, RESOLVE);
    assertThat(p).isNotNull();
    if (p.object() == null) {
      assertThat(p.problem()).isNotBlank();
      if (!p.problem().contains("member")) { // member names are named; values never
        assertThat(p.problem()).doesNotContain(MARKER);
      }
      return;
    }
    String shape = ToolResultShape.problem(p.object().get("result"));
    if (shape != null) {
      assertThat(shape).startsWith("result").doesNotContain(MARKER);
    }
  }
}
