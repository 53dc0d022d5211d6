package dev.tally.core.audit;

import static dev.tally.core.audit.Fixtures.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.canonical.CanonicalizationException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link Journal} does with entries Tally's builders never make (their strings are cleaned by
 * {@link Text}): control characters are escaped as RFC 8785 does, and what {@link FlatEntry} has no
 * form for goes to the general canonicalizer, as before.
 */
class JournalTest {
  @TempDir Path dir;
  private SigningKey key;
  private AuditOptions options;

  @BeforeEach
  void keys() throws IOException {
    key = SigningKey.create(dir.resolve(AuditFiles.SIGNING_KEY));
    Files.writeString(dir.resolve(AuditFiles.PUBLIC_KEY), key.publicKey().toText());
    options = Fixtures.options(new MutableClock(T0)).withCanonicalizer(Canonicalizer.jcs());
  }

  private Journal activity() {
    return Journal.open(dir.resolve(AuditFiles.ACTIVITY), key, options);
  }

  private AuditVerification verify() {
    Journal.open(dir.resolve(AuditFiles.SESSIONS), key, options).close();
    return AuditVerifier.create(Canonicalizer.jcs()).verify(dir, Optional.empty());
  }

  private List<String> lines() throws IOException {
    return Files.readAllLines(dir.resolve(AuditFiles.ACTIVITY), StandardCharsets.UTF_8);
  }

  @Test
  void controlAndSupplementaryCharactersAreWrittenAsRfc8785Does() throws IOException {
    Journal j = activity();
    j.append(new FlatEntry(1).put("type", "note").put("text", "a\u0001\u001f\t\"\\😂\u007f"));
    j.close();

    assertThat(lines().get(0)).contains("\"text\":\"a\\u0001\\u001f\\t\\\"\\\\😂\u007f\"");
    assertThat(verify().message()).isEqualTo("ok: 1 entries, 1 checkpoints");
  }

  @Test
  void aLoneSurrogateIsRefusedByTheGeneralCanonicalizerAndTheChainGoesOn() throws IOException {
    Journal j = activity();
    assertThatThrownBy(() -> j.append(new FlatEntry(1).put("type", "note").put("text", "\ud800")))
        .isInstanceOf(CanonicalizationException.class);
    j.append(new FlatEntry(1).put("type", "note").put("text", "after"));
    j.close();

    JsonNode first = EntryCodec.STRICT.readTree(lines().get(0));
    assertThat(first.get("seq").asLong()).isEqualTo(1);
    assertThat(first.get("text").asText()).isEqualTo("after");
    assertThat(verify().message()).isEqualTo("ok: 1 entries, 1 checkpoints");
  }

  @Test
  void anIntegerBeyondTwoToThe53TakesTheGeneralCanonicalForm() throws IOException {
    Journal j = activity();
    j.append(new FlatEntry(1).put("type", "note").put("n", FlatEntry.MAX_SAFE_INTEGER + 2));
    j.close();

    assertThat(lines().get(0)).contains("\"n\":9007199254740992,");
    assertThat(verify().message()).isEqualTo("ok: 1 entries, 1 checkpoints");
  }
}
