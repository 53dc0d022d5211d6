package dev.tally.sidecar.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.ToolClass;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ToolSchemasTest {
  private final JsonRpc json = JsonRpc.create(32);
  private final ContractRegistry contracts = ContractRegistry.defaults();
  private final ToolSchemas schemas = ToolSchemas.create(contracts);

  private static String listing(boolean readOnly) {
    return "{\"tools\":[{\"name\":\"lookup\",\"annotations\":{\"readOnlyHint\":"
        + readOnly
        + "},\"inputSchema\":{\"type\":\"object\",\"properties\":{"
        + "\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"}}}}]}";
  }

  /** Learns {@code result} embedded in a larger message, as LearnTap hands it over. */
  private void learn(String result) {
    byte[] message =
        ("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":" + result + "}")
            .getBytes(StandardCharsets.UTF_8);
    int off = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":".length();
    schemas.learn(message, off, result.length(), json.mapper());
  }

  private ToolClass lookupClass() {
    return contracts.resolve("lookup").toolClass();
  }

  @Test
  void learnsAnnotationsAndHeaderParametersFromAResultInsideAMessage() {
    learn(listing(true));
    assertThat(lookupClass()).isEqualTo(ToolClass.READ_ONLY);
    assertThat(schemas.headerParams("lookup"))
        .containsExactly(new ToolSchemas.HeaderParam("Region", java.util.List.of("region")));
  }

  @Test
  void anUnchangedListingIsNotParsedAgainButAChangedOneIs() {
    learn(listing(true));
    // Something else changed the registry: an identical listing is skipped and leaves it alone.
    contracts.learnAnnotations("lookup", null, true);
    learn(listing(true));
    assertThat(lookupClass()).isEqualTo(ToolClass.KEYED);
    learn(listing(false));
    assertThat(lookupClass()).isNotEqualTo(ToolClass.READ_ONLY);
    learn(listing(true));
    assertThat(lookupClass()).isEqualTo(ToolClass.READ_ONLY);
  }

  @Test
  void aMalformedListingTeachesNothingAndIsNotRemembered() {
    learn("{\"tools\":[{\"name\":\"lookup\",\"annotations\":{\"readOnlyHint\":true}}");
    assertThat(lookupClass()).isNotEqualTo(ToolClass.READ_ONLY);
    learn(listing(true));
    assertThat(lookupClass()).isEqualTo(ToolClass.READ_ONLY);
  }
}
