package dev.tally.core.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.contract.ToolClass;
import dev.tally.core.contract.ToolContract;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class StoredCallTest {
  private static final byte[] MSG =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}"
          .getBytes(StandardCharsets.UTF_8);

  @Test
  void theDigestAndTheMessageRoundTripByteForByte() {
    StoredCall c = StoredCall.decode(StoredCall.encode("sha256:0011223344556677", MSG));
    assertThat(c.digest()).isEqualTo("sha256:0011223344556677");
    assertThat(c.message()).isEqualTo(MSG);
  }

  @Test
  void aValueStoredBeforeTheHeaderExistedIsTheMessageWithoutDigest() {
    StoredCall c = StoredCall.decode(MSG);
    assertThat(c.digest()).isNull();
    assertThat(c.message()).isEqualTo(MSG);
  }

  @Test
  void aTruncatedHeaderYieldsNoMessage() {
    StoredCall c =
        StoredCall.decode("tally-pending/1 sha256:00".getBytes(StandardCharsets.US_ASCII));
    assertThat(c.digest()).isNull();
    assertThat(c.message()).isEmpty();
  }

  @Test
  void theContractDigestIsStableAndSeesEveryDecidingField() {
    ToolContract a =
        ToolContract.of("t", ToolClass.IRREVERSIBLE, ToolContract.Source.CONFIGURATION)
            .withReleaseOnError(true);
    ToolContract same =
        ToolContract.of("t", ToolClass.IRREVERSIBLE, ToolContract.Source.ANNOTATIONS)
            .withReleaseOnError(true);
    assertThat(a.digest()).isEqualTo(same.digest()).startsWith("sha256:").hasSize(23);
    assertThat(a.withReleaseOnError(false).digest()).isNotEqualTo(a.digest());
    assertThat(a.withReplayWindow(Duration.ofSeconds(9)).digest()).isNotEqualTo(a.digest());
    assertThat(ToolContract.of("t", ToolClass.KEYED, ToolContract.Source.CONFIGURATION).digest())
        .isNotEqualTo(
            ToolContract.of("t", ToolClass.IRREVERSIBLE, ToolContract.Source.CONFIGURATION)
                .digest());
  }
}
