package dev.tally.core.gate;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.mcp.Headers;
import java.util.Objects;

/**
 * One incoming {@code tools/call}, as an adapter hands it to the {@link Gate}.
 *
 * @param tool {@code params.name}
 * @param arguments {@code params.arguments} (an object, or {@code null})
 * @param meta {@code params._meta} (an object, or {@code null})
 * @param continuation the call carries MRTR {@code inputResponses} (a follow-up of an
 *     input-required answer)
 * @param headers the HTTP request headers
 * @param target the upstream identity (the sidecar's upstream, the filter's application)
 */
public record ToolCall(
    String tool,
    JsonNode arguments,
    JsonNode meta,
    boolean continuation,
    Headers headers,
    String target) {
  public ToolCall {
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(headers, "headers");
    Objects.requireNonNull(target, "target");
  }

  @Override
  public String toString() {
    return "ToolCall[" + tool + "]";
  }
}
