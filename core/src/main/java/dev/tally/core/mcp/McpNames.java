package dev.tally.core.mcp;

/**
 * The names MCP and Tally put on the wire, defined once for every adapter: JSON-RPC methods, HTTP
 * header names and {@code _meta} keys. Header names are compared case-insensitively by every {@link
 * Headers} implementation; methods and {@code _meta} keys are case-sensitive.
 */
public final class McpNames {
  private McpNames() {}

  /** JSON-RPC methods Tally reads. */
  public static final class Methods {
    public static final String TOOLS_CALL = "tools/call";
    public static final String TOOLS_LIST = "tools/list";
    public static final String INITIALIZE = "initialize";
    public static final String PROMPTS_GET = "prompts/get";
    public static final String RESOURCES_READ = "resources/read";
    public static final String NOTIFICATIONS_INITIALIZED = "notifications/initialized";
    public static final String CANCELLED = "notifications/cancelled";
    public static final String TOOLS_LIST_CHANGED = "notifications/tools/list_changed";
    public static final String SERVER_DISCOVER = "server/discover";

    private Methods() {}
  }

  /** HTTP header names of the Streamable HTTP transport (both eras) and of Tally. */
  public static final class HeaderNames {
    public static final String PROTOCOL_VERSION = "MCP-Protocol-Version";
    public static final String METHOD = "Mcp-Method";
    public static final String NAME = "Mcp-Name";
    public static final String PARAM_PREFIX = "Mcp-Param-";
    public static final String SESSION_ID = "Mcp-Session-Id";
    public static final String LAST_EVENT_ID = "Last-Event-ID";
    public static final String ORIGIN = "Origin";
    public static final String ACCEPT = "Accept";
    public static final String CONTENT_TYPE = "Content-Type";
    public static final String TRACEPARENT = "traceparent";
    public static final String TRACESTATE = "tracestate";

    /** The header that carries the execution id to the upstream with a dispatched call. */
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    /** The default header of an explicit intent scope (agent run id). */
    public static final String INTENT_SCOPE = "Tally-Intent-Scope";

    private HeaderNames() {}
  }

  /** {@code _meta} keys. */
  public static final class MetaKeys {
    /** The protocol version a 2026-07-28 request carries in {@code params._meta}. */
    public static final String PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";

    /** The execution id Tally adds to a dispatched call's {@code params._meta}. */
    public static final String EXECUTION_ID = "dev.tally/executionId";

    /** The marker on a replayed result ({@code result._meta}, or an error's {@code data}). */
    public static final String REPLAY = "dev.tally/replay";

    /** The capabilities a 2026-07-28 client declares in every request's {@code params._meta}. */
    public static final String CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

    /**
     * The pending call's fields ({@code status}, {@code actionId}, {@code confirmUrl}, ...) in the
     * {@code result._meta} of the input-required answer that offers it as an elicitation.
     */
    public static final String PENDING = "dev.tally/pending";

    /** An explicit intent scope (agent run id) in a call's {@code params._meta}. */
    public static final String INTENT_SCOPE = "dev.tally/intentScope";

    /**
     * W3C trace context in {@code params._meta} (MCP SEP-414: unprefixed, the W3C header format);
     * Tally sets it on a dispatched call to name its dispatch span.
     */
    public static final String TRACEPARENT = "traceparent";

    /** The W3C {@code tracestate} that goes with {@link #TRACEPARENT} in {@code params._meta}. */
    public static final String TRACESTATE = "tracestate";

    private MetaKeys() {}
  }
}
