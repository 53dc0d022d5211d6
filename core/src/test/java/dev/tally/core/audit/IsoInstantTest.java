package dev.tally.core.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IsoInstantTest {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "1970-01-01T00:00:00Z",
        "2026-12-01T02:41:46Z",
        "2026-12-01T02:41:46.100Z",
        "2026-12-01T02:41:46.000100Z",
        "2026-12-01T02:41:46.000000100Z",
        "2026-12-01T02:41:46.123456789Z",
        "2024-02-29T23:59:59.999Z",
        "1969-12-31T23:59:59.999999999Z",
        "0000-01-01T00:00:00Z",
        "9999-12-31T23:59:59.999999999Z",
        "+10000-01-01T00:00:00Z",
        "-0001-12-31T23:59:59Z"
      })
  void formatsExactlyLikeInstantToString(String text) {
    Instant at = Instant.parse(text);
    assertThat(IsoInstant.format(at)).isEqualTo(at.toString()).isEqualTo(text);
  }

  @Test
  void agreesWithInstantToStringOnRandomInstants() {
    SplittableRandom r = new SplittableRandom(42);
    for (int i = 0; i < 200_000; i++) {
      long seconds = r.nextLong(-62_200_000_000L, 253_500_000_000L);
      int nano =
          switch (i % 4) {
            case 0 -> 0;
            case 1 -> r.nextInt(1000) * 1_000_000;
            case 2 -> r.nextInt(1_000_000) * 1000;
            default -> r.nextInt(1_000_000_000);
          };
      Instant at = Instant.ofEpochSecond(seconds, nano);
      assertThat(IsoInstant.format(at)).isEqualTo(at.toString());
    }
  }
}
