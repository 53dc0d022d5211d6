package dev.tally.core.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ExecutionIdTest {
  @Test
  void idsAreActPlusAUlidCarryingTheTime() {
    Instant t = Instant.parse("2026-11-30T12:00:00.123Z");
    ExecutionId id = ExecutionId.generate(InstantSource.fixed(t), new Random(1));
    assertThat(id.value()).matches("act_[0-7][0-9A-HJKMNP-TV-Z]{25}");
    assertThat(id.timestampMillis()).isEqualTo(t.toEpochMilli());
  }

  @Test
  void idsSortByTimeAndDoNotCollide() {
    Set<String> seen = new HashSet<>();
    Random r = new Random(7);
    ExecutionId prev = null;
    for (int i = 0; i < 10_000; i++) {
      ExecutionId id =
          ExecutionId.generate(
              InstantSource.fixed(Instant.ofEpochMilli(1_700_000_000_000L + i)), r);
      assertThat(seen.add(id.value())).isTrue();
      if (prev != null) {
        assertThat(id).isGreaterThan(prev);
      }
      prev = id;
    }
  }

  @Test
  void malformedIdsAreRefusedWithoutEchoingThem() {
    for (String bad :
        new String[] {
          "",
          "act_",
          "act_01M8P7R1MXT89JP41DV5RJAMM",
          "act_01M8P7R1MXT89JP41DV5RJAMMU",
          "act_81M8P7R1MXT89JP41DV5RJAMMW",
          "xct_01M8P7R1MXT89JP41DV5RJAMMW",
          "act_01m8p7r1mxt89jp41dv5rjammw"
        }) {
      assertThat(ExecutionId.isValid(bad)).as(bad).isFalse();
      assertThatThrownBy(() -> ExecutionId.parse(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .satisfies(e -> assertThat(bad.length() < 5 || !e.getMessage().contains(bad)).isTrue());
    }
    assertThat(ExecutionId.isValid("act_01M8P7R1MXT89JP41DV5RJAMMW")).isTrue();
  }
}
