package dev.tally.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One {@code tools/call} request as {@link ToolCallReader} read it: the parts the gate needs, and
 * the client's bytes, so that the request can go upstream exactly as the client sent it with only
 * {@code params._meta["dev.tally/executionId"]} added (no re-serialization: numbers, key order,
 * escapes and whitespace of the arguments are the client's own).
 *
 * <p>Immutable; the trees must not be changed by callers.
 */
public final class ToolCallEnvelope {
  private final JsonNode id;
  private final String tool;
  private final ObjectNode arguments;
  private final ObjectNode meta;
  private final boolean continuation;
  private final String metaVersion;
  private final byte[] source;
  private final int off;
  private final int len;
  private final Splice splice;

  /**
   * Where the execution id goes, as offsets relative to {@code off}.
   *
   * @param paramsOpen just past the {@code '{'} of {@code params}
   * @param paramsEmpty {@code params} has no member
   * @param metaStart start of the {@code _meta} value, or -1 when there is no {@code _meta}
   * @param metaEnd just past the {@code _meta} value
   * @param metaIsObject the value is an object (else it is {@code null})
   * @param metaEmpty the object has no member
   * @param idStart start of an existing {@code dev.tally/executionId} value in {@code _meta}, or -1
   * @param idEnd just past it
   */
  record Splice(
      int paramsOpen,
      boolean paramsEmpty,
      int metaStart,
      int metaEnd,
      boolean metaIsObject,
      boolean metaEmpty,
      int idStart,
      int idEnd) {}

  ToolCallEnvelope(
      JsonNode id,
      String tool,
      ObjectNode arguments,
      ObjectNode meta,
      boolean continuation,
      String metaVersion,
      byte[] source,
      int off,
      int len,
      Splice splice) {
    this.id = id;
    this.tool = tool;
    this.arguments = arguments;
    this.meta = meta;
    this.continuation = continuation;
    this.metaVersion = metaVersion;
    this.source = source;
    this.off = off;
    this.len = len;
    this.splice = splice;
  }

  /** The request id: a string or integer node. */
  public JsonNode id() {
    return id;
  }

  /** {@code params.name}. */
  public String tool() {
    return tool;
  }

  /** {@code params.arguments}, or {@code null} when absent or null. */
  public ObjectNode arguments() {
    return arguments;
  }

  /** {@code params._meta}, or {@code null} when absent or null. */
  public ObjectNode meta() {
    return meta;
  }

  /** The call carries MRTR {@code params.inputResponses}: it continues an input-required call. */
  public boolean continuation() {
    return continuation;
  }

  /** {@code params._meta["io.modelcontextprotocol/protocolVersion"]} when a string, else null. */
  public String metaVersion() {
    return metaVersion;
  }

  /** The client's bytes of the request, unchanged. */
  public byte[] original() {
    return Arrays.copyOfRange(source, off, off + len);
  }

  /**
   * The request to send upstream for execution {@code executionId}: the client's bytes with {@code
   * params._meta["dev.tally/executionId"]} set (inserted, or its value replaced when the client
   * sent one); every other byte is the client's.
   */
  public byte[] withExecutionId(String executionId) {
    byte[] value = quoted(executionId);
    Splice s = splice;
    if (s.idStart() >= 0) {
      return replace(s.idStart(), s.idEnd(), value);
    }
    byte[] member = concat(quoted(McpNames.MetaKeys.EXECUTION_ID), bytes(":"), value);
    if (s.metaStart() >= 0 && s.metaIsObject()) {
      // After the '{' of _meta.
      return insert(s.metaStart() + 1, s.metaEmpty() ? member : concat(member, bytes(",")));
    }
    byte[] object = concat(bytes("{"), member, bytes("}"));
    if (s.metaStart() >= 0) {
      return replace(s.metaStart(), s.metaEnd(), object); // "_meta": null
    }
    byte[] withKey = concat(quoted("_meta"), bytes(":"), object);
    return insert(s.paramsOpen(), s.paramsEmpty() ? withKey : concat(withKey, bytes(",")));
  }

  private byte[] insert(int at, byte[] what) {
    return replace(at, at, what);
  }

  private byte[] replace(int from, int to, byte[] what) {
    byte[] out = new byte[len - (to - from) + what.length];
    System.arraycopy(source, off, out, 0, from);
    System.arraycopy(what, 0, out, from, what.length);
    System.arraycopy(source, off + to, out, from + what.length, len - to);
    return out;
  }

  /** A JSON string of {@code s}, which must be printable ASCII without quote or backslash. */
  private static byte[] quoted(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
        throw new IllegalArgumentException("not a plain ASCII token");
      }
    }
    return ("\"" + s + "\"").getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  @Override
  public String toString() {
    return "ToolCallEnvelope[" + tool + "]";
  }
}
