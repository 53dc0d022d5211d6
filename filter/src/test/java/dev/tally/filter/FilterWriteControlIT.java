package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Write control's {@code tools/list} through the servlet filter in front of the MCP Java SDK's
 * servlet transport (issue 18): a write tool is listed only while its caller may write and the
 * switch is on for it, a never-exposed tool never, and a hidden write called by name is an unknown
 * tool. The answer is filtered by core's {@code ListingFilter}, as the sidecar filters it.
 */
class FilterWriteControlIT {
  private static final String WRITER = "Bearer writer-filter-token-0123";
  private static final String READER = "Bearer reader-filter-token-0123";

  private SdkApp app;

  @AfterEach
  void stop() throws Exception {
    if (app != null) {
      app.close();
    }
  }

  private void start(String writes) throws Exception {
    TallyConfig config =
        TallyConfig.parse(
            "store: memory\n" + writes + "tools:\n  " + SdkApp.READ + ":\n    class: read_only\n",
            "test",
            ConfigOverrides.none());
    app = SdkApp.withConfiguredFilter(config);
  }

  private RawMcp as(String authorization, Map<String, String> more) throws Exception {
    RawMcp raw = new RawMcp(app.endpoint());
    raw.session.put("Authorization", authorization);
    raw.session.putAll(more);
    return raw.initialize();
  }

  private static List<String> listed(RawMcp mcp) throws Exception {
    JsonNode r = mcp.call(RawMcp.request("tools/list"));
    List<String> names = new ArrayList<>();
    for (JsonNode t : r.path("result").path("tools")) {
      names.add(t.path("name").asText());
    }
    assertThat(r.path("result").has("tools")).as(r.toString()).isTrue();
    return names;
  }

  @Test
  void theSwitchHidesWritesFromTheListingAndTheCallUntilSwitchedOnAgain() throws Exception {
    start("writes:\n  enabled: false\n");
    RawMcp mcp = as(WRITER, Map.of());
    assertThat(listed(mcp)).containsExactlyInAnyOrder(SdkApp.READ, SdkApp.STATUS);
    JsonNode hidden = mcp.call(RawMcp.toolCall(SdkApp.WRITE, "off-" + UUID.randomUUID()));
    assertThat(hidden.path("error").path("code").asInt()).as(hidden.toString()).isEqualTo(-32602);
    assertThat(hidden.path("error").path("message").asText())
        .isEqualTo("Unknown tool: " + SdkApp.WRITE);

    app.filter.gate().writes().writeSwitch().setGlobal(true);
    assertThat(listed(mcp))
        .containsExactlyInAnyOrder(SdkApp.READ, SdkApp.WRITE, SdkApp.STATUS, SdkApp.CLOSE);
    JsonNode ran = mcp.call(RawMcp.toolCall(SdkApp.WRITE, "on-" + UUID.randomUUID()));
    assertThat(ran.path("result").path("isError").asBoolean(true)).as(ran.toString()).isFalse();
    assertThat(app.writes.get()).isOne();
  }

  @Test
  void aCallerWithoutTheWriteScopeSeesAndUsesOnlyReads() throws Exception {
    start("writes:\n  scopeHeader: X-Scopes\n  scope: mcp:write\n");
    RawMcp writer = as(WRITER, Map.of("X-Scopes", "mcp:read mcp:write"));
    RawMcp reader = as(READER, Map.of("X-Scopes", "mcp:read"));
    assertThat(listed(writer))
        .containsExactlyInAnyOrder(SdkApp.READ, SdkApp.WRITE, SdkApp.STATUS, SdkApp.CLOSE);
    assertThat(listed(reader)).containsExactlyInAnyOrder(SdkApp.READ, SdkApp.STATUS);
    JsonNode refused = reader.call(RawMcp.toolCall(SdkApp.WRITE, "r-" + UUID.randomUUID()));
    assertThat(refused.path("error").path("code").asInt()).as(refused.toString()).isEqualTo(-32602);
    JsonNode read = reader.call(RawMcp.toolCall(SdkApp.READ, "r"));
    assertThat(read.path("result").path("content").path(0).path("text").asText())
        .startsWith("read #");
    assertThat(app.writes.get()).isZero();
  }

  @Test
  void aNeverExposedToolNeverAppearsNorRuns() throws Exception {
    start("writes:\n  neverExposed: [" + SdkApp.READ + "]\n");
    RawMcp mcp = as(WRITER, Map.of());
    assertThat(listed(mcp)).containsExactlyInAnyOrder(SdkApp.WRITE, SdkApp.STATUS, SdkApp.CLOSE);
    JsonNode refused = mcp.call(RawMcp.toolCall(SdkApp.READ, "x"));
    assertThat(refused.path("error").path("code").asInt()).as(refused.toString()).isEqualTo(-32602);
    assertThat(app.reads.get()).isZero();
  }
}
