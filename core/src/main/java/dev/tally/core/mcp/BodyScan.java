package dev.tally.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What {@link BodyClassifier} found in a POST body, without building a tree: one decision for both
 * adapters about what the body is and whether it may go on.
 *
 * @param shape a single message, a batch, or refused
 * @param kind for a {@link Shape#MESSAGE}: request, notification or response; else {@code null}
 * @param method the top-level {@code method}, or {@code null}
 * @param id the top-level {@code id} (a string, integer or null node) when it was read, else {@code
 *     null}; set on refusals too when the id was readable, so the error can echo it
 * @param name {@code params.name} ({@code tools/call}, {@code prompts/get}) or {@code params.uri}
 *     ({@code resources/read}) when it is a string, else {@code null}
 * @param metaVersion {@code params._meta["io.modelcontextprotocol/protocolVersion"]} when it is a
 *     string, else {@code null}
 * @param wellFormedCall a {@code tools/call} request whose envelope passes every check of {@link
 *     ToolCallReader} that needs no tree ({@code params} an object, {@code name} a non-empty
 *     string, {@code arguments} and {@code _meta} objects or null): only such a call may pass
 *     through without being read whole
 * @param problem why the body is refused ({@link Shape#REFUSED}), else {@code null}
 */
public record BodyScan(
    Shape shape,
    Kind kind,
    String method,
    JsonNode id,
    String name,
    String metaVersion,
    boolean wellFormedCall,
    TallyError problem) {

  /** The top-level form of a body. */
  public enum Shape {
    MESSAGE,
    BATCH,
    REFUSED
  }

  /** What a single message is. */
  public enum Kind {
    /** A {@code method} and a non-null {@code id}. */
    REQUEST,
    /** A {@code method} and no {@code id}. */
    NOTIFICATION,
    /**
     * No {@code method}; a {@code result} or an {@code error} (the client answering the server).
     */
    RESPONSE
  }

  static BodyScan refused(JsonNode id, TallyError problem) {
    return new BodyScan(Shape.REFUSED, null, null, id, null, null, false, problem);
  }

  static BodyScan batch() {
    return new BodyScan(Shape.BATCH, null, null, null, null, null, false, null);
  }

  /** Whether the body is a {@code tools/call} message (request or notification). */
  public boolean isToolsCall() {
    return shape == Shape.MESSAGE && McpNames.Methods.TOOLS_CALL.equals(method);
  }

  /** Whether the body is a request for {@code method}. */
  public boolean isRequestFor(String m) {
    return kind == Kind.REQUEST && m.equals(method);
  }
}
