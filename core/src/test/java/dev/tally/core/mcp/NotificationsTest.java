package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class NotificationsTest {
  private final WireJson json = WireJson.defaults();

  private com.fasterxml.jackson.databind.JsonNode cancelled(String msg) {
    byte[] b = msg.getBytes(StandardCharsets.UTF_8);
    return Notifications.cancelledRequestId(json, b, 0, b.length);
  }

  @Test
  void readsTheRequestIdOfACancellation() {
    assertThat(
            cancelled(
                    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                        + "\"params\":{\"requestId\":7,\"reason\":\"timeout\"}}")
                .intValue())
        .isEqualTo(7);
    assertThat(
            cancelled(
                    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                        + "\"params\":{\"requestId\":\"r-1\"}}")
                .textValue())
        .isEqualTo("r-1");
  }

  @Test
  void anythingElseNamesNoRequest() {
    assertThat(cancelled("{\"method\":\"notifications/cancelled\",\"params\":{}}")).isNull();
    assertThat(cancelled("{\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1.5}}"))
        .isNull();
    assertThat(
            cancelled(
                "{\"id\":3,\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}"))
        .as("a request is not a notification")
        .isNull();
    assertThat(cancelled("{\"method\":\"notifications/progress\",\"params\":{\"requestId\":1}}"))
        .isNull();
    assertThat(cancelled("{\"method\":")).isNull();
  }

  @Test
  void spotsAToolListChange() {
    assertThat(
            Notifications.isToolListChanged(
                json,
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}"
                    .getBytes(StandardCharsets.UTF_8)))
        .isTrue();
    assertThat(
            Notifications.isToolListChanged(
                json,
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"text\":\"notifications/tools/list_changed\"}}"
                    .getBytes(StandardCharsets.UTF_8)))
        .isFalse();
    assertThat(Notifications.isToolListChanged(json, "{}".getBytes(StandardCharsets.UTF_8)))
        .isFalse();
  }

  @Test
  void idKeysTellStringsFromNumbers() {
    var f = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance;
    assertThat(Notifications.idKey(f.numberNode(7)))
        .isEqualTo(Notifications.idKey(f.numberNode(7L)))
        .isNotEqualTo(Notifications.idKey(f.textNode("7")));
    assertThat(Notifications.idKey(f.numberNode(1.5))).isNull();
    assertThat(Notifications.idKey(f.nullNode())).isNull();
  }
}
