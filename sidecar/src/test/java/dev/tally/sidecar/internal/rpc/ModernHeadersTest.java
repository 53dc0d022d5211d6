package dev.tally.sidecar.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.ToolListing;
import dev.tally.core.mcp.ToolParamHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ModernHeadersTest {
  private final JsonRpc json = JsonRpc.create(32);
  private final ContractRegistry contracts = ContractRegistry.defaults();
  private final ToolParamHeaders schemas = ToolParamHeaders.create();

  private ToolCallBody body(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return ToolCallBody.parse(json, b, 0, b.length);
  }

  private static Headers headers(String... kv) {
    Map<String, String> m = new TreeMap<>();
    m.put("mcp-protocol-version", "2026-07-28");
    m.put("mcp-method", "tools/call");
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i].toLowerCase(Locale.ROOT), kv[i + 1]);
    }
    return n -> m.get(n.toLowerCase(Locale.ROOT));
  }

  private void learnSql() throws Exception {
    ToolListing.learn(
        json.mapper()
            .readTree(
                "{\"tools\":[{\"name\":\"execute_sql\",\"annotations\":{\"readOnlyHint\":false,\"idempotentHint\":true},"
                    + "\"inputSchema\":{\"type\":\"object\",\"properties\":{"
                    + "\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
                    + "\"opts\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"x-mcp-header\":\"N\"}}},"
                    + "\"query\":{\"type\":\"string\"}}}}]}"),
        contracts,
        schemas);
  }

  private static final String CALL =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"execute_sql\","
          + "\"arguments\":{\"region\":\"us-west1\",\"opts\":{\"n\":42},\"query\":\"q\"},"
          + "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}";

  @Test
  void matchingHeadersPass() throws Exception {
    learnSql();
    Headers h =
        headers("Mcp-Name", "execute_sql", "Mcp-Param-Region", "us-west1", "mcp-param-n", "42.0");
    assertThat(ModernHeaders.checkToolCall(h, body(CALL), schemas, "2026-07-28")).isNull();
    assertThat(contracts.resolve("execute_sql").toolClass()).isEqualTo(ToolClass.KEYED);
  }

  @Test
  void base64NameIsDecodedBeforeComparing() {
    String call = CALL.replace("execute_sql", "café");
    Headers h = headers("Mcp-Name", "=?base64?Y2Fmw6k=?=");
    assertThat(ModernHeaders.checkToolCall(h, body(call), schemas, "2026-07-28")).isNull();
  }

  @Test
  void mismatchesAreNamedWithoutValues() throws Exception {
    learnSql();
    ToolCallBody b = body(CALL);
    assertThat(ModernHeaders.checkToolCall(headers(), b, schemas, "2026-07-28"))
        .contains("Mcp-Name header is missing");
    assertThat(ModernHeaders.checkToolCall(headers("Mcp-Name", "other"), b, schemas, "2026-07-28"))
        .contains("Mcp-Name header does not match params.name");
    assertThat(
            ModernHeaders.checkToolCall(
                headers("Mcp-Name", "execute_sql", "Mcp-Param-N", "42"), b, schemas, "2026-07-28"))
        .containsIgnoringCase("Mcp-Param-Region header is missing");
    String wrong =
        ModernHeaders.checkToolCall(
            headers("Mcp-Name", "execute_sql", "Mcp-Param-Region", "eu-x", "Mcp-Param-N", "42"),
            b,
            schemas,
            "2026-07-28");
    assertThat(wrong)
        .containsIgnoringCase("Mcp-Param-Region header does not match")
        .doesNotContain("eu-x")
        .doesNotContain("us-west1");
    assertThat(
            ModernHeaders.checkToolCall(
                headers(
                    "MCP-Protocol-Version",
                    "2026-08-01",
                    "Mcp-Name",
                    "execute_sql",
                    "Mcp-Param-Region",
                    "us-west1",
                    "Mcp-Param-N",
                    "42"),
                b,
                schemas,
                "2026-08-01"))
        .contains("MCP-Protocol-Version");
  }

  @Test
  void methodHeaderMustMatch() {
    assertThat(ModernHeaders.checkMethod(null, "tools/call")).contains("missing");
    assertThat(ModernHeaders.checkMethod("tools/list", "tools/call")).contains("does not match");
    assertThat(ModernHeaders.checkMethod("tools/call", "tools/call")).isNull();
  }

  @Test
  void eraIsDecidedByProtocolVersion() {
    assertThat(ModernHeaders.isModern("2026-07-28")).isTrue();
    assertThat(ModernHeaders.isModern("2025-11-25")).isFalse();
    assertThat(ModernHeaders.isModern(null)).isFalse();
  }

  @Test
  void nameAndVersionChecksNeedNoArguments() {
    String v = "2026-07-28";
    assertThat(
            ModernHeaders.checkNameAndVersion(
                modern("Mcp-Name", "lookup"), "lookup", "2026-07-28", v))
        .isNull();
    assertThat(ModernHeaders.checkNameAndVersion(modern("Mcp-Name", "lookup"), "lookup", null, v))
        .isNull();
    assertThat(ModernHeaders.checkNameAndVersion(modern(), "lookup", null, v))
        .contains("Mcp-Name header is missing");
    assertThat(ModernHeaders.checkNameAndVersion(modern("Mcp-Name", "other"), "lookup", null, v))
        .contains("Mcp-Name header does not match params.name");
    assertThat(
            ModernHeaders.checkNameAndVersion(
                modern("Mcp-Name", "lookup"), "lookup", "2025-11-25", v))
        .contains("MCP-Protocol-Version header does not match");
  }

  private static Headers modern(String... kv) {
    return headers(kv);
  }
}
