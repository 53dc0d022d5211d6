package dev.tally.sidecar.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResponseScannerTest {
  private final ResponseScanner scanner = ResponseScanner.create(JsonRpc.create(16));

  @Test
  void resultBytesAreCutVerbatim() {
    String result = "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"isError\":true}";
    byte[] msg =
        ("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":" + result + "}")
            .getBytes(StandardCharsets.UTF_8);
    ResponseScan s = scanner.scan(msg);
    assertThat(s.kind()).isEqualTo(ResponseScan.Kind.RESULT);
    assertThat(new String(s.result(msg), StandardCharsets.UTF_8)).isEqualTo(result);
    assertThat(s.isError()).isTrue();
    assertThat(s.answers(JsonNodeFactory.instance.numberNode(3))).isTrue();
    assertThat(s.answers(JsonNodeFactory.instance.textNode("3"))).isFalse();
  }

  @Test
  void inputRequiredResultIsRecognized() {
    byte[] msg =
        "{\"id\":\"x\",\"result\":{\"resultType\":\"input_required\",\"requestState\":\"s\"}}"
            .getBytes(StandardCharsets.UTF_8);
    ResponseScan s = scanner.scan(msg);
    assertThat(s.inputRequired()).isTrue();
    assertThat(s.answers(JsonNodeFactory.instance.textNode("x"))).isTrue();
  }

  @Test
  void errorsCarryCodeAndMessage() {
    byte[] msg =
        "{\"id\":1,\"error\":{\"code\":-32602,\"message\":\"bad\",\"data\":{\"k\":[1]}}}"
            .getBytes(StandardCharsets.UTF_8);
    ResponseScan s = scanner.scan(msg);
    assertThat(s.kind()).isEqualTo(ResponseScan.Kind.ERROR);
    assertThat(s.errorCode()).isEqualTo(-32602);
    assertThat(s.errorMessage()).isEqualTo("bad");
  }

  @Test
  void requestsNotificationsAndGarbageAreOther() {
    assertThat(
            scanner
                .scan(
                    "{\"method\":\"notifications/progress\",\"params\":{}}"
                        .getBytes(StandardCharsets.UTF_8))
                .kind())
        .isEqualTo(ResponseScan.Kind.OTHER);
    assertThat(
            scanner
                .scan(
                    "{\"id\":1,\"method\":\"elicitation/create\"}".getBytes(StandardCharsets.UTF_8))
                .kind())
        .isEqualTo(ResponseScan.Kind.OTHER);
    assertThat(scanner.scan("not json".getBytes(StandardCharsets.UTF_8)).kind())
        .isEqualTo(ResponseScan.Kind.OTHER);
  }
}
