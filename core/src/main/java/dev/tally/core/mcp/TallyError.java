package dev.tally.core.mcp;

import java.util.Objects;

/**
 * A protocol-level refusal: one code, one HTTP status, one JSON-RPC error code (docs table). The
 * message names what was wrong (a header, a JSON pointer, a limit) and never echoes a value.
 */
public record TallyError(Code code, String message) {

  /**
   * Coded refusals. Most are protocol errors (a JSON-RPC error with the HTTP status); the ones
   * {@link #isValidation()} names are about a value the agent chose and come back as a {@code
   * VALIDATION_ERROR} tool result instead (HTTP 200), which every SDK hands to the model.
   */
  public enum Code {
    INVALID_IDEMPOTENCY_KEY(400, -32602, false),
    INVALID_INTENT_SCOPE(400, -32602, false),
    INVALID_ARGUMENTS(400, -32602, false),
    INVALID_REQUEST(400, -32600, false),
    /**
     * A tool hidden from this caller by write control: answered exactly as the MCP specification's
     * unknown tool (JSON-RPC -32602, no Tally data), so a hidden tool cannot be told from none.
     */
    UNKNOWN_TOOL(200, -32602, false),
    /** A confirmation refused because the operator's write switch is off for the caller. */
    MCP_WRITE_DISABLED(409, -32600, false),
    /**
     * A confirmation refused because the tool's contract changed since the call was made (it no
     * longer needs confirmation, its class or digest differs, or the tool is gone); the call is
     * rejected and never runs.
     */
    CONTRACT_CHANGED(409, -32600, false),
    /**
     * A {@code requestState} that claims to be Tally's (it starts with {@code tally1.}) but does
     * not verify: altered, under a key no longer in the ring, made for another actor, another tool
     * or another call. Nothing was sent or decided.
     */
    REQUEST_STATE_INVALID(400, -32602, false),
    /** A {@code requestState} of Tally's whose time is up: re-send the call without it. */
    REQUEST_STATE_EXPIRED(400, -32602, false),
    PARSE_ERROR(400, -32700, false),
    HEADER_MISMATCH(400, -32020, false),
    UNSUPPORTED_MEDIA_TYPE(415, -32600, false),
    NOT_ACCEPTABLE(406, -32600, false),
    PAYLOAD_TOO_LARGE(413, -32600, false),
    /** The request body did not arrive whole in time; the connection closes. */
    REQUEST_TIMEOUT(408, -32600, true),
    FORBIDDEN_ORIGIN(403, -32600, false),
    FORBIDDEN_HOST(403, -32600, false),
    IDENTITY_UNPROVEN(401, -32021, false),
    FORBIDDEN_SESSION(403, -32022, false),
    UNKNOWN_EVENT_ID(404, -32600, false),
    STORE_UNAVAILABLE(503, -32603, true),
    UPSTREAM_UNAVAILABLE(502, -32603, true),
    UPSTREAM_TIMEOUT(504, -32603, true),
    SHUTTING_DOWN(503, -32603, true),
    /** Too many request-body bytes are buffered at once; retry later. */
    OVERLOADED(503, -32603, true);

    private final int httpStatus;
    private final int rpcCode;
    private final boolean retryable;

    Code(int httpStatus, int rpcCode, boolean retryable) {
      this.httpStatus = httpStatus;
      this.rpcCode = rpcCode;
      this.retryable = retryable;
    }

    public int httpStatus() {
      return httpStatus;
    }

    public int rpcCode() {
      return rpcCode;
    }

    public boolean retryable() {
      return retryable;
    }

    /**
     * Whether the refusal is about a value the agent chose (its idempotency key, its intent scope)
     * rather than the protocol: answered as a {@code VALIDATION_ERROR} tool result.
     */
    public boolean isValidation() {
      return this == INVALID_IDEMPOTENCY_KEY || this == INVALID_INTENT_SCOPE;
    }
  }

  public TallyError {
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(message, "message");
  }

  public static TallyError of(Code code, String message) {
    return new TallyError(code, message);
  }
}
