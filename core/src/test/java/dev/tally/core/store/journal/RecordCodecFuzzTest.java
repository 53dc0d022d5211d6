package dev.tally.core.store.journal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.execution.ExecutionId;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import dev.tally.core.testing.Mutations;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Fuzzing of the journal record decoder (issue 21): a damaged or hostile payload is refused with
 * {@link RecordCodec.DecodeException} naming its offset, never any other exception (which recovery
 * would not catch). Bounded by {@code -Dtally.fuzz.tries}; crashers kept under {@code
 * src/test/resources/fuzz/journal/}.
 */
class RecordCodecFuzzTest {
  private static final List<byte[]> SEEDS = seeds();

  private static List<byte[]> seeds() {
    MutableClock clock = MutableClock.create();
    FrameBuffer buf = new FrameBuffer(16);
    buf.begin();
    RecordCodec.encode(new JournalEntry.Put(Executions.candidate(clock).build(), null, null), buf);
    RecordCodec.encode(
        new JournalEntry.Put(
            Executions.candidate(clock).build(),
            "{\"content\":[]}".getBytes(StandardCharsets.UTF_8),
            null),
        buf);
    RecordCodec.encode(new JournalEntry.Purge(ExecutionId.generate(clock)), buf);
    byte[] all =
        Arrays.copyOfRange(
            buf.array(),
            JournalFormat.FRAME_HEADER_BYTES,
            JournalFormat.FRAME_HEADER_BYTES + buf.payloadSize());
    return List.of(all);
  }

  @Test
  void aDamagedPayloadIsRefusedWithItsOffsetNeverAnotherException() {
    Mutations.forEach(SEEDS, 4, RecordCodecFuzzTest::decode);
  }

  @Test
  void theSeedDecodes() throws Exception {
    int[] n = {0};
    RecordCodec.decode(SEEDS.get(0), 0, SEEDS.get(0).length, (e, size) -> n[0]++);
    assertThat(n[0]).isEqualTo(3);
  }

  @Test
  void keptCrashersStayFixed() {
    Mutations.regressions("journal").forEach(RecordCodecFuzzTest::decode);
  }

  private static void decode(byte[] payload) {
    try {
      RecordCodec.decode(payload, 0, payload.length, (e, size) -> assertThat(size).isPositive());
    } catch (RecordCodec.DecodeException refused) {
      assertThat(refused.at).isBetween(0, payload.length);
    }
  }
}
