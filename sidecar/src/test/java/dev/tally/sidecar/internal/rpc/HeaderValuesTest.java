package dev.tally.sidecar.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HeaderValuesTest {
  @Test
  void plainAsciiPassesUnchanged() {
    assertThat(HeaderValues.decode("us-west1")).isEqualTo("us-west1");
    assertThat(HeaderValues.decode("a b\tc")).isEqualTo("a b\tc");
  }

  @Test
  void decodesTheSpecExamples() {
    assertThat(HeaderValues.decode("=?base64?SGVsbG8sIOS4lueVjA==?=")).isEqualTo("Hello, 世界");
    assertThat(HeaderValues.decode("=?base64?IHBhZGRlZCA=?=")).isEqualTo(" padded ");
    assertThat(HeaderValues.decode("=?base64?bGluZTEKbGluZTI=?=")).isEqualTo("line1\nline2");
    assertThat(HeaderValues.decode("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="))
        .isEqualTo("=?base64?literal?=");
  }

  @Test
  void sentinelIsCaseSensitive() {
    assertThat(HeaderValues.decode("=?BASE64?SGk=?=")).isEqualTo("=?BASE64?SGk=?=");
  }

  @Test
  void malformedValuesAreRejected() {
    assertThat(HeaderValues.decode("=?base64?not base64!?=")).isNull();
    assertThat(HeaderValues.decode("=?base64?/w==?=")).isNull(); // 0xFF is not UTF-8
    assertThat(HeaderValues.decode("caf\u00e9")).isNull();
    assertThat(HeaderValues.decode("a\nb")).isNull();
    assertThat(HeaderValues.decode("=?base64??=")).isEmpty();
  }
}
