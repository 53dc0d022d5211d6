package dev.tally.core.audit;

import static dev.tally.core.audit.Fixtures.T0;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Entries are a persisted format read years later: fields are only ever added, so readers must
 * accept entries with fields they do not know and without optional fields they do.
 */
class FormatEvolutionTest {
  static final JsonNodeFactory F = JsonNodeFactory.instance;
  static final String ID = "act_01JWNNSVG0QQ2XZ6M681GB464W";

  @TempDir Path dir;

  /**
   * Writes {@code bodies} as a later writer of the format might (any JSON values), then opens the
   * journal, which checks them and signs them with a checkpoint.
   */
  private void write(ObjectNode... bodies) throws IOException {
    SigningKey key = SigningKey.create(dir.resolve(AuditFiles.SIGNING_KEY));
    Files.writeString(dir.resolve(AuditFiles.PUBLIC_KEY), key.publicKey().toText());
    List<byte[]> lines = new ArrayList<>();
    String prev = Hashes.ZERO_HASH;
    for (ObjectNode b : bodies) {
      b.put("v", EntryCodec.VERSION).put("seq", lines.size() + 1).put("prev", prev);
      byte[] line = Fixtures.line(b, prev);
      prev = EntryCodec.STRICT.readTree(line).get("hash").asText();
      lines.add(line);
    }
    Path activity = dir.resolve(AuditFiles.ACTIVITY);
    Files.write(activity, Fixtures.join(lines));
    AuditOptions options = Fixtures.options(new MutableClock(T0));
    Journal.open(activity, key, options).close();
    Journal.open(dir.resolve(AuditFiles.SESSIONS), key, options).close();
  }

  @Test
  void entriesWithUnknownFieldsAndWithoutOptionalOnesVerifyAndRender() throws IOException {
    ObjectNode future = F.objectNode();
    future.put("type", "transition").put("execution", ID).put("state", "accepted");
    future.put("at", T0.toString()).put("actor", "alice").put("tool", "refund");
    future.put("added_in_v1_7", "something new").put("flag", true);
    future.putObject("nested").put("a", 1).putArray("b").add(2).add("three");
    ObjectNode sparse = F.objectNode();
    sparse.put("type", "transition").put("execution", ID).put("state", "dispatched");
    sparse.putNull("summary");
    ObjectNode retryWithoutOutcome = F.objectNode();
    retryWithoutOutcome.put("type", "retry").put("execution", ID).put("at", "not a time");
    ObjectNode unknownType = F.objectNode();
    unknownType.put("type", "annotation").put("text", "operator note");
    write(future, sparse, retryWithoutOutcome, unknownType);

    AuditVerification v = Fixtures.verifier().verify(dir, Optional.empty());
    assertThat(v.message()).isEqualTo("ok: 4 entries, 1 checkpoints");

    assertThat(AuditTimeline.render(dir, Optional.empty()))
        .isEqualTo(
            "1 execution (first seen, id, tool, actor, last state):\n"
                + AuditTimeline.columnTime(T0)
                + "  "
                + ID
                + "  refund  alice  dispatched  1 retry\n");
    String detail = AuditTimeline.render(dir, Optional.of(ID));
    assertThat(detail)
        .contains("  " + AuditTimeline.columnTime(T0) + "  accepted\n")
        .contains("  (no time)                       dispatched\n")
        .contains("  (no time)                       retry: -\n")
        .contains("  dispatch          reached at (no time)\n")
        .contains("  target            no answer recorded yet\n")
        .contains("  later calls       1 answered from this execution: answered at (no time)\n")
        .contains("  idempotency key   not recorded\n")
        .doesNotContain("null");
  }

  @Test
  void aLineThatIsNotJsonIsCountedNotFatalForTheTimeline() throws Exception {
    ObjectNode e = F.objectNode();
    e.put("type", "transition").put("execution", ID).put("state", "accepted");
    write(e);
    Files.writeString(
        dir.resolve(AuditFiles.ACTIVITY), "not json\n", java.nio.file.StandardOpenOption.APPEND);
    assertThat(AuditTimeline.render(dir, Optional.empty()))
        .contains(ID)
        .endsWith("\nNote: 1 line could not be read; run 'tally audit verify'.\n");
  }
}
