package dev.tally.sidecar.internal.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchMergerTest {
  private static BatchAnswer a(String json) {
    return BatchAnswer.of(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void answersAreJoinedInRequestOrderSkippingElementsWithoutOne() {
    byte[] merged =
        BatchMerger.merge(Arrays.asList(a("{\"id\":2}"), BatchAnswer.NONE, null, a("{\"id\":1}")));
    assertThat(new String(merged, StandardCharsets.UTF_8)).isEqualTo("[{\"id\":2},{\"id\":1}]");
  }

  @Test
  void noAnswerAtAllMeansNoBody() {
    assertThat(BatchMerger.merge(List.of(BatchAnswer.NONE, BatchAnswer.NONE))).isNull();
    assertThat(BatchMerger.merge(List.of())).isNull();
  }
}
