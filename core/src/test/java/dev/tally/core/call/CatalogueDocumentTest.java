package dev.tally.core.call;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.mcp.ToolListing;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CatalogueDocumentTest {
  private final ObjectMapper json = new ObjectMapper();

  private List<ToolListing.Tool> read(String doc) {
    return CatalogueDocument.read(json, doc.getBytes(StandardCharsets.UTF_8), "t");
  }

  @Test
  void roundTrips() {
    List<ToolListing.Tool> tools =
        List.of(
            new ToolListing.Tool("search", true, null, Map.of()),
            new ToolListing.Tool(
                "deploy", null, true, Map.of("region", List.of("where", "region"))));
    byte[] doc = CatalogueDocument.write(json, "t", Instant.parse("2026-12-01T10:00:00Z"), tools);
    assertThat(CatalogueDocument.read(json, doc, "t")).isEqualTo(tools);
  }

  @Test
  void missingNullAndUnknownFieldsAreRead() {
    assertThat(
            read(
                "{\"v\":1,\"extra\":{\"x\":1},\"tools\":[{\"name\":\"a\",\"readOnlyHint\":null,"
                    + "\"future\":[1]},{\"name\":\"b\",\"idempotentHint\":true,\"paramHeaders\":null}]}"))
        .containsExactly(
            new ToolListing.Tool("a", null, null, Map.of()),
            new ToolListing.Tool("b", null, true, Map.of()));
    assertThat(read("{\"v\":2}")).as("a later version without tools").isEmpty();
    assertThat(read("{\"v\":1,\"tools\":[{\"readOnlyHint\":true},{\"name\":\"\"},7]}")).isEmpty();
    assertThat(
            read(
                "{\"v\":1,\"tools\":[{\"name\":\"a\",\"readOnlyHint\":\"yes\","
                    + "\"paramHeaders\":{\"h\":[1],\"g\":[],\"k\":[\"p\"]}}]}"))
        .containsExactly(new ToolListing.Tool("a", null, null, Map.of("k", List.of("p"))));
  }

  @Test
  void anotherTargetSaysNothing() {
    assertThat(read("{\"v\":1,\"target\":\"other\",\"tools\":[{\"name\":\"a\"}]}")).isNull();
    assertThat(read("{\"v\":1,\"target\":null,\"tools\":[{\"name\":\"a\"}]}")).hasSize(1);
  }

  @Test
  void whatIsNotACatalogueIsRefusedWithoutEchoingIt() {
    assertThatThrownBy(() -> read("secret-token-value")).hasMessage("not JSON");
    assertThatThrownBy(() -> read("[1]")).hasMessage("not a JSON object");
    assertThatThrownBy(() -> read("{\"tools\":[]}"))
        .hasMessage("v: missing or not a positive integer");
    assertThatThrownBy(() -> read("{\"v\":\"1\"}"))
        .hasMessage("v: missing or not a positive integer");
  }
}
