package dev.tally.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AttributeSetsTest {
  private static final AttributeKey<String> TOOL = AttributeKey.stringKey("gen_ai.tool.name");

  @Test
  void aKeySeenBeforeGetsTheSameSetWithoutBuildingItAgain() {
    AtomicInteger built = new AtomicInteger();
    AttributeSets<String> sets =
        new AttributeSets<>(
            k -> {
              built.incrementAndGet();
              return Attributes.of(TOOL, k);
            });

    Attributes first = sets.of("deploy");
    Attributes again = sets.of(new String("deploy"));

    assertThat(again).isSameAs(first).isEqualTo(Attributes.of(TOOL, "deploy"));
    assertThat(built).hasValue(1);
  }

  @Test
  void pastTheBoundSetsAreBuiltEachTimeAndNotKept() {
    AtomicInteger built = new AtomicInteger();
    AttributeSets<String> sets =
        new AttributeSets<>(
            k -> {
              built.incrementAndGet();
              return Attributes.of(TOOL, k);
            });
    for (int i = 0; i < AttributeSets.MAX; i++) {
      sets.of("tool-" + i);
    }
    built.set(0);

    Attributes a = sets.of("one-more");
    Attributes b = sets.of("one-more");

    assertThat(a).isEqualTo(b).isEqualTo(Attributes.of(TOOL, "one-more"));
    assertThat(built).hasValue(2);
    assertThat(sets.of("tool-7")).isEqualTo(Attributes.of(TOOL, "tool-7"));
    assertThat(built).hasValue(2);
  }
}
