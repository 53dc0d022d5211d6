package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class HeaderRulesTest {
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

  private static final BodyClassifier CLASSIFIER = BodyClassifier.create(WireJson.defaults());

  /** The rule under test on a request tree: its message when refused. */
  private static java.util.Optional<String> check(
      Headers h, JsonNode request, Map<String, List<String>> params) throws Exception {
    BodyScan scan = CLASSIFIER.classify(JSON.writeValueAsBytes(request));
    assertThat(scan.problem()).isNull();
    JsonNode args = request.at("/params/arguments");
    java.util.Optional<TallyError> e =
        HeaderRules.check(h, scan, args.isMissingNode() ? null : args, params);
    e.ifPresent(err -> assertThat(err.code()).isEqualTo(TallyError.Code.HEADER_MISMATCH));
    return e.map(TallyError::message);
  }

  private static final String[] OK = {
    "MCP-Protocol-Version", "2026-07-28", "mcp-method", "tools/call", "Mcp-Name", "exec sql"
  };

  @Test
  void consistentModernRequestPasses() throws Exception {
    assertThat(check(headers(OK), modern("{}"), Map.of())).isEmpty();
  }

  @Test
  void missingOrDifferentStandardHeadersAreNamed() throws Exception {
    assertThat(
            check(
                headers("Mcp-Method", "tools/call", "Mcp-Name", "exec sql"),
                modern("{}"),
                Map.of()))
        .hasValueSatisfying(m -> assertThat(m).contains("MCP-Protocol-Version"));
    assertThat(
            check(
                headers("MCP-Protocol-Version", "2026-07-28", "Mcp-Name", "exec sql"),
                modern("{}"),
                Map.of()))
        .hasValueSatisfying(m -> assertThat(m).contains("Mcp-Method header is missing"));
    assertThat(
            check(
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
            check(
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
    assertThat(check(headers("Mcp-Method", "tools/list"), legacy, Map.of())).isPresent();
    assertThat(check(headers(), legacy, Map.of())).isEmpty();
    JsonNode ping = JSON.readTree("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    assertThat(check(headers("Mcp-Method", "tools/call"), ping, Map.of())).isPresent();
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
    assertThat(check(headers(withParam), modern("{\"where\":{\"region\":\"eu-west ü\"}}"), REGION))
        .isEmpty();
    assertThat(check(headers(withParam), modern("{\"where\":{\"region\":\"us\"}}"), REGION))
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
    assertThat(check(headers(num), modern("{\"n\":42.0}"), n)).isEmpty();
    assertThat(check(headers(num), modern("{\"n\":43}"), n)).isPresent();
  }

  @Test
  void aParamInTheBodyWithoutItsHeaderIsRefusedAndAbsentValuesNeedNone() throws Exception {
    assertThat(check(headers(OK), modern("{\"where\":{\"region\":\"x\"}}"), REGION))
        .hasValueSatisfying(m -> assertThat(m).contains("Mcp-Param-region header is missing"));
    assertThat(check(headers(OK), modern("{\"where\":{\"region\":null}}"), REGION)).isEmpty();
    assertThat(check(headers(OK), modern("{}"), REGION)).isEmpty();
  }

  @Test
  void invalidCharactersAndBadSentinelsAreRefused() throws Exception {
    String[] bad = {
      "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "=?base64?%%?="
    };
    assertThat(check(headers(bad), modern("{}"), Map.of()))
        .hasValueSatisfying(m -> assertThat(m).contains("invalid Base64"));
    String[] ctl = {
      "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "exec\u0001sql"
    };
    assertThat(check(headers(ctl), modern("{}"), Map.of()))
        .hasValueSatisfying(m -> assertThat(m).contains("invalid characters"));
  }

  @Test
  void mirroredHeadersAreWhatTheValidatorAccepts() throws Exception {
    Map<String, List<String>> params =
        Map.of(
            "region", List.of("where", "region"),
            "amount", List.of("amount"),
            "dry", List.of("dry"),
            "note", List.of("note"),
            "absent", List.of("nothing"));
    byte[] body =
        ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
                + "\"exec sql\",\"arguments\":{\"where\":{\"region\":\"eu-west-1\"},"
                + "\"amount\":12345678901234567890.10,\"dry\":false,\"note\":\"caf\u00e9 \","
                + "\"list\":[1]},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
                + "\"2026-07-28\"}}}")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    JsonNode args = WireJson.defaults().strict().readTree(body).at("/params/arguments");
    Map<String, String> h = HeaderRules.mirrored("2026-07-28", "exec sql", args, params);
    assertThat(h)
        .containsEntry("MCP-Protocol-Version", "2026-07-28")
        .containsEntry("Mcp-Method", "tools/call")
        .containsEntry("Mcp-Name", "exec sql")
        .containsEntry("Mcp-Param-region", "eu-west-1")
        .containsEntry("Mcp-Param-amount", "12345678901234567890.10")
        .containsEntry("Mcp-Param-dry", "false")
        .containsEntry("Mcp-Param-note", Base64Sentinel.encode("caf\u00e9 "))
        .doesNotContainKey("Mcp-Param-absent")
        .hasSize(7);
    assertThat(h.get("Mcp-Param-note")).startsWith("=?base64?");
    Map<String, String> ci = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    ci.putAll(h);
    BodyScan scan = CLASSIFIER.classify(body);
    assertThat(HeaderRules.check(ci::get, scan, args, params)).isEmpty();
  }

  @Test
  void mirroredNameIsEncodedWhenNotPlain() {
    assertThat(HeaderRules.mirrored("2026-07-28", "r\u00e9sum\u00e9", null, REGION))
        .containsEntry("Mcp-Name", Base64Sentinel.encode("r\u00e9sum\u00e9"))
        .hasSize(3);
  }
}

class HeaderRulesEraTest {
  private static final BodyClassifier C = BodyClassifier.create(WireJson.defaults());

  private static java.util.Optional<TallyError> check(String body, String... kv) {
    Map<String, String> m = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    BodyScan scan = C.classify(body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return HeaderRules.check(m::get, scan, null, Map.of());
  }

  private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";

  @Test
  void aLegacyRequestWithAMismatchingMethodHeaderIsRefused() {
    assertThat(check(LIST, "Mcp-Method", "tools/call")).isPresent();
    assertThat(check(LIST)).isEmpty();
  }

  @Test
  void aModernRequestOfAnyMethodNeedsTheMethodHeaderButANotificationDoesNot() {
    assertThat(check(LIST, "MCP-Protocol-Version", "2026-07-28"))
        .hasValueSatisfying(e -> assertThat(e.message()).contains("Mcp-Method header is missing"));
    assertThat(
            check(
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}",
                "MCP-Protocol-Version",
                "2026-07-28"))
        .isEmpty();
  }

  @Test
  void aMetaProtocolVersionMakesTheRequestModernAndNeedsTheVersionHeader() {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":"
            + "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}";
    assertThat(check(body, "Mcp-Method", "tools/list"))
        .hasValueSatisfying(
            e -> assertThat(e.message()).contains("MCP-Protocol-Version header is missing"));
    assertThat(check(body, "Mcp-Method", "tools/list", "MCP-Protocol-Version", "2027-01-01"))
        .hasValueSatisfying(e -> assertThat(e.message()).contains("does not match params._meta"));
    assertThat(check(body, "Mcp-Method", "tools/list", "MCP-Protocol-Version", "2026-07-28"))
        .isEmpty();
  }

  @Test
  void aNameHeaderThatIsSentMustMatchInEveryEra() {
    String call =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"get\"}}";
    assertThat(check(call, "Mcp-Name", "put")).isPresent();
    assertThat(check(call, "Mcp-Name", "get")).isEmpty();
    assertThat(check(call)).isEmpty();
  }
}
