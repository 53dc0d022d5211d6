package dev.tally.core.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class AuditPublicKeyTest {
  final SigningKey signer = SigningKey.generate();
  final AuditPublicKey key = signer.publicKey();

  @Test
  void textFormatRoundTripsAndIgnoresComments() {
    assertThat(AuditPublicKey.parse(key.toText())).isEqualTo(key);
    assertThat(AuditPublicKey.parse("# a comment\n\n  " + key.line() + "  \n")).isEqualTo(key);
    assertThat(key.toText()).startsWith("# ").endsWith("\n" + key.line() + "\n");
  }

  @Test
  void keyIdIsTheStartOfTheKeysSha256() {
    assertThat(key.keyId())
        .hasSize(16)
        .isEqualTo(Hashes.hex(Hashes.sha256(key.raw())).substring(0, 16));
    assertThat(key.line())
        .isEqualTo(
            "tally-audit-key-v1 ed25519 "
                + key.keyId()
                + " "
                + Base64.getEncoder().encodeToString(key.raw()));
  }

  @Test
  void signaturesVerifyOnlyForTheSignedMessageAndKey() {
    byte[] msg = "checkpoint".getBytes(StandardCharsets.US_ASCII);
    byte[] sig = signer.sign(msg);
    assertThat(key.verify(msg, sig)).isTrue();
    assertThat(key.verify("checkpoinT".getBytes(StandardCharsets.US_ASCII), sig)).isFalse();
    assertThat(SigningKey.generate().publicKey().verify(msg, sig)).isFalse();
    assertThat(key.verify(msg, new byte[3])).isFalse();
  }

  @Test
  void malformedKeyFilesAreNamedPrecisely() {
    assertThatThrownBy(() -> AuditPublicKey.parse("# only a comment\n"))
        .hasMessageStartingWith("no key line");
    assertThatThrownBy(() -> AuditPublicKey.parse("ssh-ed25519 AAAA\n"))
        .hasMessageStartingWith(
            "line 1: expected \"tally-audit-key-v1 ed25519 <key id> <base64>\"");
    assertThatThrownBy(() -> AuditPublicKey.parse(key.line() + "\n" + key.line()))
        .hasMessage("line 2: a second key line");
    String otherId = key.line().replace(key.keyId(), "0000000000000000");
    assertThatThrownBy(() -> AuditPublicKey.parse(otherId))
        .hasMessage("the key id does not match the key");
    assertThatThrownBy(
            () ->
                AuditPublicKey.parse(
                    "tally-audit-key-v1 ed25519 00 "
                        + Base64.getEncoder().encodeToString(new byte[31])))
        .hasMessage("an Ed25519 public key has 32 bytes, not 31");
  }

  @Test
  void toStringShowsOnlyTheKeyId() {
    assertThat(key.toString()).isEqualTo("AuditPublicKey[ed25519 " + key.keyId() + "]");
    assertThat(signer.toString()).isEqualTo("SigningKey[" + key.keyId() + "]");
  }
}
