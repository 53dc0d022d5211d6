package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class McpRequestHeadersTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, List<String>> REGION =
      Map.of("region", List.of("where", "region"));

  private static Headers headers(String... kv) {
    Map<String, String> m = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m::get;
  }

  private static JsonNode modern(String args) throws Exception {
    return JSON.readTree(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"exec sql\","
            + "\"arguments\":"
            + args
            + ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}");
  }

  private static final String[] OK = {
    "MCP-Protocol-Version", "2026-07-28", "mcp-method", "tools/call", "Mcp-Name", "exec sql"
  };

  @Test
  void consistentModernRequestPasses() throws Exception {
    assertThat(McpRequestHeaders.check(headers(OK), modern("{}"), Map.of())).isEmpty();
  }

  @Test
  void missingOrDifferentStandardHeadersAreNamed() throws Exception {
    assertThat(
            McpRequestHeaders.check(
                headers("Mcp-Method", "tools/call", "Mcp-Name", "exec sql"),
                modern("{}"),
                Map.of()))
        .hasValueSatisfying(m -> assertThat(m).contains("MCP-Protocol-Version"));
    assertThat(
            McpRequestHeaders.check(
                headers("MCP-Protocol-Version", "2026-07-28", "Mcp-Name", "exec sql"),
                modern("{}"),
                Map.of()))
        .hasValueSatisfying(m -> assertThat(m).contains("Mcp-Method header is missing"));
    assertThat(
            McpRequestHeaders.check(
                headers(
                    "MCP-Protocol-Version",
                    "2026-07-28",
                    "Mcp-Method",
                    "tools/call",
                    "Mcp-Name",
                    "drop"),
                modern("{}"),
                Map.of()))
        .hasValueSatisfying(m -> assertThat(m).contains("Mcp-Name").doesNotContain("drop"));
    assertThat(
            McpRequestHeaders.check(
                headers(
                    "MCP-Protocol-Version",
                    "2026-07-29",
                    "Mcp-Method",
                    "tools/call",
                    "Mcp-Name",
                    "exec sql"),
                modern("{}"),
                Map.of()))
        .isPresent();
  }

  @Test
  void methodHeaderIsCheckedInEveryEra() throws Exception {
    JsonNode legacy =
        JSON.readTree(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}");
    assertThat(McpRequestHeaders.check(headers("Mcp-Method", "tools/list"), legacy, Map.of()))
        .isPresent();
    assertThat(McpRequestHeaders.check(headers(), legacy, Map.of())).isEmpty();
    assertThat(McpRequestHeaders.checkMethod(headers("Mcp-Method", "ping"), "tools/call"))
        .isPresent();
  }

  @Test
  void paramHeadersAreDecodedAndComparedByType() throws Exception {
    String[] withParam = {
      "MCP-Protocol-Version",
      "2026-07-28",
      "Mcp-Method",
      "tools/call",
      "Mcp-Name",
      "exec sql",
      "Mcp-Param-Region",
      "=?base64?ZXUtd2VzdCDDvA==?="
    };
    assertThat(
            McpRequestHeaders.check(
                headers(withParam), modern("{\"where\":{\"region\":\"eu-west ü\"}}"), REGION))
        .isEmpty();
    assertThat(
            McpRequestHeaders.check(
                headers(withParam), modern("{\"where\":{\"region\":\"us\"}}"), REGION))
        .hasValueSatisfying(
            m -> assertThat(m).contains("params.arguments.where.region").doesNotContain("us"));
    Map<String, List<String>> n = Map.of("n", List.of("n"));
    String[] num = {
      "MCP-Protocol-Version",
      "2026-07-28",
      "Mcp-Method",
      "tools/call",
      "Mcp-Name",
      "exec sql",
      "Mcp-Param-N",
      "42"
    };
    assertThat(McpRequestHeaders.check(headers(num), modern("{\"n\":42.0}"), n)).isEmpty();
    assertThat(McpRequestHeaders.check(headers(num), modern("{\"n\":43}"), n)).isPresent();
  }

  @Test
  void aParamInTheBodyWithoutItsHeaderIsRefusedAndAbsentValuesNeedNone() throws Exception {
    assertThat(
            McpRequestHeaders.check(headers(OK), modern("{\"where\":{\"region\":\"x\"}}"), REGION))
        .hasValueSatisfying(m -> assertThat(m).contains("Mcp-Param-region header is missing"));
    assertThat(
            McpRequestHeaders.check(headers(OK), modern("{\"where\":{\"region\":null}}"), REGION))
        .isEmpty();
    assertThat(McpRequestHeaders.check(headers(OK), modern("{}"), REGION)).isEmpty();
  }

  @Test
  void invalidCharactersAndBadSentinelsAreRefused() throws Exception {
    String[] bad = {
      "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "=?base64?%%?="
    };
    assertThat(McpRequestHeaders.check(headers(bad), modern("{}"), Map.of()))
        .hasValueSatisfying(m -> assertThat(m).contains("invalid Base64"));
    String[] ctl = {
      "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "exec\u0001sql"
    };
    assertThat(McpRequestHeaders.check(headers(ctl), modern("{}"), Map.of()))
        .hasValueSatisfying(m -> assertThat(m).contains("invalid characters"));
  }
}
