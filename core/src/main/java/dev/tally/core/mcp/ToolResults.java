package dev.tally.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.gate.TallyCode;
import dev.tally.core.gate.TallyError;

/**
 * The one encoder of what Tally itself answers (replays, explicit results, refusals); both adapters
 * use it so their bytes cannot drift. All methods return a complete JSON-RPC response as UTF-8.
 *
 * <p>STUB: being implemented.
 */
public final class ToolResults {
  private ToolResults() {}

  /**
   * A replay: {@code result} (stored bytes) with {@code _meta["dev.tally/replay"]}, under {@code
   * id}.
   */
  public static byte[] replay(JsonNode id, Execution execution, byte[] result) {
    throw new UnsupportedOperationException("stub");
  }

  /** An explicit {@code isError: true} result with {@code structuredContent.tally}. */
  public static byte[] respond(JsonNode id, TallyCode code, Execution execution) {
    throw new UnsupportedOperationException("stub");
  }

  /** A JSON-RPC error response for a refusal (send with {@link TallyError.Code#httpStatus()}). */
  public static byte[] error(JsonNode id, TallyError error) {
    throw new UnsupportedOperationException("stub");
  }
}
