package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.ToolClass;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolListingTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void learnsAnnotationsAndStaticallyReachableParamHeaders() throws Exception {
    String result =
        "{\"tools\":[{\"name\":\"read\",\"annotations\":{\"readOnlyHint\":true}},"
            + "{\"name\":\"put\",\"annotations\":{\"idempotentHint\":true},\"inputSchema\":{\"type\":\"object\","
            + "\"properties\":{\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
            + "\"target\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\",\"x-mcp-header\":\"Target-Id\"}}},"
            + "\"list\":{\"type\":\"array\",\"items\":{\"properties\":{\"x\":{\"x-mcp-header\":\"X\"}}}}}}},"
            + "{\"annotations\":{}},{\"name\":\"write\"}]}";
    ContractRegistry contracts = ContractRegistry.defaults();
    ToolParamHeaders headers = ToolParamHeaders.create();

    List<ToolListing.Tool> tools = ToolListing.learn(JSON.readTree(result), contracts, headers);

    assertThat(tools).extracting(ToolListing.Tool::name).containsExactly("read", "put", "write");
    assertThat(contracts.resolve("read").toolClass()).isEqualTo(ToolClass.READ_ONLY);
    assertThat(contracts.resolve("put").toolClass()).isEqualTo(ToolClass.KEYED);
    assertThat(contracts.resolve("write").toolClass()).isEqualTo(ToolClass.IRREVERSIBLE);
    assertThat(headers.forTool("put"))
        .containsEntry("region", List.of("region"))
        .containsEntry("target-id", List.of("target", "id"))
        .doesNotContainKey("x");
    assertThat(headers.forTool("write")).isEmpty();
  }

  @Test
  void aResultWithoutToolsTeachesNothing() throws Exception {
    assertThat(ToolListing.parse(JSON.readTree("{}"))).isEmpty();
    assertThat(ToolListing.parse(null)).isEmpty();
  }
}
