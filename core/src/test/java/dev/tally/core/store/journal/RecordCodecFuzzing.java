package dev.tally.core.store.journal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tally.core.testing.FuzzBudget;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Coverage-guided fuzzing (Jazzer) of the journal record decoder (issue 21). Properties: a damaged
 * or hostile payload is refused with {@link RecordCodec.DecodeException} at an offset inside it,
 * never any other exception (which recovery would not catch); the records it does decode account
 * for every byte; and each decoded record round-trips: encoded again from the execution alone and
 * decoded, it is the same execution with the same result bytes. How to run it: {@code
 * core/src/test/resources/fuzz/README.md}.
 */
class RecordCodecFuzzing {

  @FuzzTest(maxDuration = FuzzBudget.CI)
  void decodedRecordsRoundTripAndDamageIsRefusedWithItsOffset(byte[] payload) {
    List<JournalEntry> entries = new ArrayList<>();
    int[] consumed = {0};
    try {
      RecordCodec.decode(
          payload,
          0,
          payload.length,
          new RecordCodec.Sink() {
            @Override
            public void accept(JournalEntry entry, int encodedBytes) {
              assertThat(encodedBytes).isPositive();
              consumed[0] += encodedBytes;
              entries.add(entry);
            }

            @Override
            public void rider(byte[] tag, long offset, byte[] bytes, int from, int length) {
              assertThat(offset).isNotNegative();
              assertThat(from + length).isLessThanOrEqualTo(payload.length);
              // type, tag length, tag, file offset (8), length (4), bytes
              consumed[0] += 1 + 1 + tag.length + 8 + 4 + length;
            }
          });
    } catch (RecordCodec.DecodeException refused) {
      assertThat(refused.at).isBetween(0, payload.length);
      assertThat(refused.getMessage()).isNotBlank();
      return;
    }
    assertThat(consumed[0]).isEqualTo(payload.length);
    for (JournalEntry e : entries) {
      JournalEntry back = reencoded(e);
      if (e instanceof JournalEntry.Put put) {
        JournalEntry.Put again = (JournalEntry.Put) back;
        assertThat(again.execution()).isEqualTo(put.execution());
        assertThat(again.result()).isEqualTo(put.result());
      } else {
        assertThat(back).isEqualTo(e);
      }
    }
  }

  /** {@code e} encoded from its execution alone (no stored document) and decoded again. */
  private static JournalEntry reencoded(JournalEntry e) {
    FrameBuffer buf = new FrameBuffer(16);
    buf.begin();
    JournalEntry fresh =
        e instanceof JournalEntry.Put put ? new JournalEntry.Put(put.execution(), put.result()) : e;
    RecordCodec.encode(fresh, buf);
    byte[] bytes =
        Arrays.copyOfRange(
            buf.array(),
            JournalFormat.FRAME_HEADER_BYTES,
            JournalFormat.FRAME_HEADER_BYTES + buf.payloadSize());
    List<JournalEntry> back = new ArrayList<>();
    try {
      RecordCodec.decode(bytes, 0, bytes.length, (entry, size) -> back.add(entry));
    } catch (RecordCodec.DecodeException ex) {
      throw new AssertionError("a record this codec wrote is refused: " + ex.getMessage(), ex);
    }
    assertThat(back).hasSize(1);
    return back.get(0);
  }
}
