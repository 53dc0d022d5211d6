package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class Base64SentinelTest {
  @Test
  void decodesTheSpecExamples() {
    assertThat(Base64Sentinel.decode("=?base64?SGVsbG8sIOS4lueVjA==?=")).contains("Hello, 世界");
    assertThat(Base64Sentinel.decode("=?base64?IHBhZGRlZCA=?=")).contains(" padded ");
    assertThat(Base64Sentinel.decode("=?base64?bGluZTEKbGluZTI=?=")).contains("line1\nline2");
    assertThat(Base64Sentinel.decode("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="))
        .contains("=?base64?literal?=");
    assertThat(Base64Sentinel.decode("us-west1")).contains("us-west1");
  }

  @Test
  void encodesLikeAClient() {
    assertThat(Base64Sentinel.encode("us-west1")).isEqualTo("us-west1");
    assertThat(Base64Sentinel.encode("Hello, 世界")).isEqualTo("=?base64?SGVsbG8sIOS4lueVjA==?=");
    assertThat(Base64Sentinel.encode(" padded ")).isEqualTo("=?base64?IHBhZGRlZCA=?=");
    assertThat(Base64Sentinel.encode("=?base64?literal?="))
        .isEqualTo("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
  }

  @Test
  void invalidBase64OrUtf8IsEmpty() {
    assertThat(Base64Sentinel.decode("=?base64?!!!?=")).isEmpty();
    assertThat(Base64Sentinel.decode("=?base64?/w==?=")).isEmpty();
  }

  @Test
  void legalHeaderValuesAreVisibleAsciiSpaceAndTab() {
    assertThat(Base64Sentinel.isLegalHeaderValue("a b\tc")).isTrue();
    assertThat(Base64Sentinel.isLegalHeaderValue("=?base64?SGk=?=")).isTrue();
    assertThat(Base64Sentinel.isLegalHeaderValue("caf\u00e9")).isFalse();
    assertThat(Base64Sentinel.isLegalHeaderValue("a\nb")).isFalse();
    assertThat(Base64Sentinel.decode("=?base64??=")).contains("");
  }

  @Test
  void markersAreCaseSensitive() {
    assertThat(Base64Sentinel.isEncoded("=?BASE64?SGk=?=")).isFalse();
    assertThat(Base64Sentinel.decode("=?BASE64?SGk=?=")).contains("=?BASE64?SGk=?=");
  }
}
