package dev.tally.core.store.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.contract.ToolClass;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.execution.ResultRef;
import dev.tally.core.execution.RpcError;
import dev.tally.core.store.internal.ExecutionBinary;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The record encoding, in memory, with hostile and evolving input. */
class RecordCodecTest {
  private static final String ID = "act_01KJMA0FM0DJABFYAVNTBYYWMN";
  private static final String REQUIRED =
      "\"id\":\""
          + ID
          + "\",\"version\":2,\"matchKey\":\"k\",\"matchKind\":\"fingerprint\",\"actor\":\"a\","
          + "\"tool\":\"t\",\"toolClass\":\"status_check\",\"fingerprint\":\"f\","
          + "\"intentScope\":\"s\",\"state\":\"accepted\",\"holdUntil\":\"2026-03-01T10:00:00Z\","
          + "\"retainUntil\":\"2026-03-02T10:00:00.123456789Z\"";

  private final MutableClock clock = MutableClock.create();

  private static Execution everyField() {
    Map<ExecutionState, Instant> timeline = new EnumMap<>(ExecutionState.class);
    timeline.put(ExecutionState.ACCEPTED, Instant.parse("2026-03-01T09:00:00Z"));
    timeline.put(ExecutionState.DISPATCHED, Instant.parse("2026-03-01T09:00:00.000001Z"));
    timeline.put(ExecutionState.COMPLETED, Instant.parse("2026-03-01T09:00:01.5Z"));
    return new Execution(
        ExecutionId.parse(ID),
        7,
        "idem:actor:tool:\"quoted\" \\ key ✓",
        MatchKind.IDEMPOTENCY_KEY,
        "actor:alice",
        "deploy_release",
        ToolClass.KEYED,
        "hmac-sha256:k1:" + "ab".repeat(32),
        "run-42",
        ExecutionState.COMPLETED,
        timeline,
        Instant.parse("2026-03-01T09:10:00Z"),
        Instant.parse("2026-03-02T09:00:00Z"),
        new Lease("sidecar-1", Instant.parse("2026-03-01T09:00:30Z")),
        502,
        new RpcError(-32603, "upstream said\nno"),
        new ResultRef(11, true, true),
        true,
        "{title:string, n:number}");
  }

  private static List<JournalEntry> roundTrip(JournalEntry... entries) throws Exception {
    FrameBuffer buf = new FrameBuffer(16);
    buf.begin();
    for (JournalEntry e : entries) {
      RecordCodec.encode(e, buf);
    }
    List<JournalEntry> out = new ArrayList<>();
    RecordCodec.decode(
        buf.array(),
        JournalFormat.FRAME_HEADER_BYTES,
        buf.payloadSize(),
        (entry, size) -> out.add(entry));
    return out;
  }

  @Test
  void everyFieldAndResultBytesSurviveARoundTrip() throws Exception {
    Execution e = everyField();
    byte[] result = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
    Execution plain = Executions.candidate(clock).build();

    List<JournalEntry> out =
        roundTrip(
            new JournalEntry.Put(e, result),
            new JournalEntry.Purge(plain.id()),
            new JournalEntry.Put(plain, null),
            new JournalEntry.Put(plain, new byte[0]));

    assertThat(out).hasSize(4);
    JournalEntry.Put put = (JournalEntry.Put) out.get(0);
    assertThat(put.execution()).isEqualTo(e);
    assertThat(put.result()).isEqualTo(result);
    assertThat(out.get(1)).isEqualTo(new JournalEntry.Purge(plain.id()));
    assertThat(((JournalEntry.Put) out.get(2)).execution()).isEqualTo(plain);
    assertThat(((JournalEntry.Put) out.get(2)).result()).isNull();
    assertThat(((JournalEntry.Put) out.get(3)).result()).isEmpty();
  }

  @Test
  void anyJavaStringRoundTripsIncludingLoneSurrogates() throws Exception {
    Execution e =
        Executions.candidate(clock)
            .tool("t\uD800ool")
            .actor("actor:\uDC00")
            .matchKey("key \uD83D\uDE00 ü \u0000 \u2028")
            .summary("{title:string} \uDFFF\uD800")
            .build();

    JournalEntry.Put put = (JournalEntry.Put) roundTrip(new JournalEntry.Put(e, null)).get(0);

    assertThat(put.execution()).isEqualTo(e);
  }

  private static List<JournalEntry> decodeDocument(String json) throws Exception {
    FrameBuffer buf = new FrameBuffer(16);
    buf.begin();
    byte[] doc = json.getBytes(StandardCharsets.UTF_8);
    buf.write(RecordCodec.TYPE_PUT);
    buf.putInt(doc.length);
    buf.write(doc, 0, doc.length);
    buf.putInt(-1);
    List<JournalEntry> out = new ArrayList<>();
    RecordCodec.decode(
        buf.array(), JournalFormat.FRAME_HEADER_BYTES, buf.payloadSize(), (e, n) -> out.add(e));
    return out;
  }

  @Test
  void unknownFieldsAreIgnoredAndMissingOrNullOptionalFieldsAreAbsent() throws Exception {
    Execution e =
        ((JournalEntry.Put)
                decodeDocument(
                        "{"
                            + REQUIRED
                            + ",\"lease\":null,\"error\":null,\"result\":null,\"targetStatus\":null,"
                            + "\"summary\":null,\"futureField\":{\"deep\":[1,2,{}]},\"v2only\":7}")
                    .get(0))
            .execution();

    assertThat(e.id().value()).isEqualTo(ID);
    assertThat(e.version()).isEqualTo(2);
    assertThat(e.matchKind()).isEqualTo(MatchKind.FINGERPRINT);
    assertThat(e.toolClass()).isEqualTo(ToolClass.STATUS_CHECK);
    assertThat(e.retainUntil()).isEqualTo(Instant.parse("2026-03-02T10:00:00.123456789Z"));
    assertThat(e.lease()).isNull();
    assertThat(e.error()).isNull();
    assertThat(e.result()).isNull();
    assertThat(e.targetStatus()).isNull();
    assertThat(e.summary()).isEmpty();
    assertThat(e.timeline()).isEmpty();
    assertThat(e.awaitingInput()).isFalse();
  }

  @Test
  void missingRequiredFieldsAreNamedWithoutEchoingValues() {
    assertThatThrownBy(() -> decodeDocument("{" + REQUIRED.replace("\"actor\":\"a\",", "") + "}"))
        .isInstanceOf(RecordCodec.DecodeException.class)
        .hasMessageContaining("/actor: missing");
    assertThatThrownBy(
            () ->
                decodeDocument(
                    "{" + REQUIRED + ",\"lease\":{\"owner\":\"secret-owner\",\"expiresAt\":5}}"))
        .hasMessageContaining("/lease/expiresAt: expected a string")
        .hasMessageNotContaining("secret-owner");
    assertThatThrownBy(
            () ->
                decodeDocument(
                    "{" + REQUIRED.replace("2026-03-01T10:00:00Z", "secret-not-a-time") + "}"))
        .hasMessageContaining("/holdUntil: expected an ISO-8601 instant")
        .hasMessageNotContaining("secret");
    assertThatThrownBy(() -> decodeDocument("{" + REQUIRED.replace("accepted", "teleported") + "}"))
        .hasMessageContaining("/state: unknown state \"teleported\"");
  }

  @Test
  void aNewerDocumentVersionIsRefused() {
    assertThatThrownBy(() -> decodeDocument("{\"v\":2," + REQUIRED + "}"))
        .hasMessageContaining("execution document version 2");
  }

  @Test
  void malformedRecordsAreRefusedWithTheirOffset() throws IOException {
    FrameBuffer buf = new FrameBuffer(16);
    buf.begin();
    RecordCodec.encode(new JournalEntry.Purge(ExecutionId.parse(ID)), buf);
    int second = buf.payloadSize();
    buf.write(9);
    byte[] b = buf.array();
    int n = buf.payloadSize();

    assertThatThrownBy(
            () -> RecordCodec.decode(b, JournalFormat.FRAME_HEADER_BYTES, n, (e, s) -> {}))
        .isInstanceOfSatisfying(
            RecordCodec.DecodeException.class, e -> assertThat(e.at).isEqualTo(second))
        .hasMessageContaining("unknown record type 9");
    assertThatThrownBy(() -> decodeDocument("{\"id\": [not json"))
        .hasMessage("malformed execution JSON");
    assertThatThrownBy(
            () -> RecordCodec.decode(b, JournalFormat.FRAME_HEADER_BYTES, second - 3, (e, s) -> {}))
        .hasMessageContaining("id length out of range");
  }

  @Test
  void formatOneJsonRecordsDecodeToTheSameExecutionAsBinaryRecords() throws Exception {
    Execution e = everyField();
    byte[] result = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
    FrameBuffer buf = new FrameBuffer(16);
    buf.begin();
    RecordCodec.encodeJson(new JournalEntry.Put(e, result), buf);
    int jsonBytes = buf.payloadSize();
    RecordCodec.encode(new JournalEntry.Put(e, result), buf);
    List<JournalEntry> out = new ArrayList<>();
    RecordCodec.decode(
        buf.array(),
        JournalFormat.FRAME_HEADER_BYTES,
        buf.payloadSize(),
        (entry, size) -> out.add(entry));

    assertThat(out).hasSize(2);
    assertThat(((JournalEntry.Put) out.get(0)).execution()).isEqualTo(e);
    assertThat(((JournalEntry.Put) out.get(1)).execution()).isEqualTo(e);
    assertThat(((JournalEntry.Put) out.get(1)).result()).isEqualTo(result);
    assertThat(buf.payloadSize() - jsonBytes).isLessThan(jsonBytes);
  }

  @Test
  void aBinaryDocumentCutShortAnywhereIsRefusedNamingAFieldNotAValue() {
    Execution e = everyField();
    FrameBuffer buf = new FrameBuffer(16);
    buf.begin();
    RecordCodec.encode(new JournalEntry.Put(e, null), buf);
    byte[] payload =
        java.util.Arrays.copyOfRange(
            buf.array(),
            JournalFormat.FRAME_HEADER_BYTES,
            JournalFormat.FRAME_HEADER_BYTES + buf.payloadSize());
    int docLength = JournalFormat.readInt(payload, 1);
    for (int cut = 0; cut < docLength; cut++) {
      byte[] shorter = recordWithDocumentLength(payload, cut);
      assertThatThrownBy(() -> RecordCodec.decode(shorter, 0, shorter.length, (entry, size) -> {}))
          .as("document cut to %d bytes", cut)
          .isInstanceOf(RecordCodec.DecodeException.class)
          .hasMessageContaining("bad execution record")
          .hasMessageNotContaining("alice")
          .hasMessageNotContaining("quoted");
    }
  }

  @Test
  void bytesAfterTheKnownFieldsOfABinaryDocumentAreIgnored() throws Exception {
    Execution e = everyField();
    FrameBuffer buf = new FrameBuffer(16);
    buf.begin();
    RecordCodec.encode(new JournalEntry.Put(e, null), buf);
    byte[] payload =
        java.util.Arrays.copyOfRange(
            buf.array(),
            JournalFormat.FRAME_HEADER_BYTES,
            JournalFormat.FRAME_HEADER_BYTES + buf.payloadSize());
    int docLength = JournalFormat.readInt(payload, 1);
    byte[] longer = recordWithDocumentLength(payload, docLength + 3);

    List<JournalEntry> out = new ArrayList<>();
    RecordCodec.decode(longer, 0, longer.length, (entry, size) -> out.add(entry));
    assertThat(((JournalEntry.Put) out.get(0)).execution()).isEqualTo(e);
  }

  @Test
  void aNewerBinaryDocumentVersionIsRefused() {
    FrameBuffer buf = new FrameBuffer(16);
    buf.begin();
    RecordCodec.encode(new JournalEntry.Put(everyField(), null), buf);
    byte[] b = buf.array();
    b[JournalFormat.FRAME_HEADER_BYTES + 5] = (byte) (ExecutionBinary.VERSION + 1);
    assertThatThrownBy(
            () ->
                RecordCodec.decode(
                    b, JournalFormat.FRAME_HEADER_BYTES, buf.payloadSize(), (x, y) -> {}))
        .hasMessageContaining("execution document version " + (ExecutionBinary.VERSION + 1));
  }

  /**
   * The record in {@code payload} (type 3, no result bytes) with its document cut or padded (with
   * zeros) to {@code length} bytes.
   */
  private static byte[] recordWithDocumentLength(byte[] payload, int length) {
    int docLength = JournalFormat.readInt(payload, 1);
    byte[] out = new byte[1 + 4 + length + 4];
    out[0] = payload[0];
    JournalFormat.writeInt(out, 1, length);
    System.arraycopy(payload, 5, out, 5, Math.min(length, docLength));
    JournalFormat.writeInt(out, 5 + length, -1);
    return out;
  }
}
