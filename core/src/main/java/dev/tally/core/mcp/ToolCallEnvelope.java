package dev.tally.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One {@code tools/call} request as {@link ToolCallReader} read it: the parts the gate needs, and
 * the client's bytes, so that the request can go upstream exactly as the client sent it with only
 * {@code params._meta["dev.tally/executionId"]} and the W3C trace context of Tally's dispatch span
 * ({@code params._meta.traceparent}, {@code tracestate}) added (no re-serialization: numbers, key
 * order, escapes and whitespace of the arguments are the client's own).
 *
 * <p>Trace context in {@code _meta} follows the MCP specification's convention (SEP-414: the keys
 * {@code traceparent}, {@code tracestate} and {@code baggage}, unprefixed, W3C formats). Tally is a
 * participating intermediary, so, as W3C Trace Context requires of one, the {@code traceparent} the
 * upstream gets names Tally's own span: a {@code traceparent} the client put in {@code _meta} is
 * replaced (the header is replaced the same way), so that a server reading either carrier finds the
 * same parent. A {@code tracestate} is set only when Tally propagates one; otherwise the client's
 * stays as it was. {@code baggage} is never touched.
 *
 * <p>Immutable; the trees must not be changed by callers.
 */
public final class ToolCallEnvelope {
  private final JsonNode id;
  private final String tool;
  private final ObjectNode arguments;
  private final ObjectNode meta;
  private final Input input;
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
   * @param traceparentStart start of an existing {@code traceparent} value in {@code _meta}, or -1
   * @param traceparentEnd just past it
   * @param tracestateStart start of an existing {@code tracestate} value in {@code _meta}, or -1
   * @param tracestateEnd just past it
   */
  record Splice(
      int paramsOpen,
      boolean paramsEmpty,
      int metaStart,
      int metaEnd,
      boolean metaIsObject,
      boolean metaEmpty,
      int idStart,
      int idEnd,
      int traceparentStart,
      int traceparentEnd,
      int tracestateStart,
      int tracestateEnd) {}

  /**
   * The MRTR members of the call: whether it carries {@code inputResponses}, their tree (when an
   * object), the {@code requestState} (when a string), and where both members start and end
   * relative to {@code off} ({@code {inputResponses start, end, requestState start, end}}, -1 when
   * absent).
   */
  record Input(boolean continuation, ObjectNode responses, String requestState, int[] members) {}

  /** One replacement of the client's bytes {@code [from, to)} by {@code bytes}. */
  private record Edit(int from, int to, byte[] bytes) {}

  ToolCallEnvelope(
      JsonNode id,
      String tool,
      ObjectNode arguments,
      ObjectNode meta,
      Input input,
      String metaVersion,
      byte[] source,
      int off,
      int len,
      Splice splice) {
    this.id = id;
    this.tool = tool;
    this.arguments = arguments;
    this.meta = meta;
    this.input = input;
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
    return input.continuation();
  }

  /** {@code params.inputResponses} when an object, else null. */
  public ObjectNode inputResponses() {
    return input.responses();
  }

  /** {@code params.requestState} when a string, else null. */
  public String requestState() {
    return input.requestState();
  }

  /**
   * The client's bytes without the {@code params.inputResponses} and {@code params.requestState}
   * members (and the comma that separated each), every other byte unchanged: the call as it stood
   * before an input-required round that Tally itself answered.
   */
  public byte[] withoutInput() {
    byte[] b = original();
    int[] m = input.members();
    // The later member first, so that the earlier one's offsets still hold.
    int first = m[0] >= 0 && (m[2] < 0 || m[0] > m[2]) ? 0 : 2;
    for (int k : new int[] {first, 2 - first}) {
      if (m[k] >= 0) {
        b = removeMember(b, m[k], m[k + 1]);
      }
    }
    return b;
  }

  /** {@code b} without the member at {@code [start, end)} and one comma next to it. */
  private static byte[] removeMember(byte[] b, int start, int end) {
    int from = start;
    int to = end;
    int after = end;
    while (after < b.length && isSpace(b[after])) {
      after++;
    }
    if (after < b.length && b[after] == ',') {
      to = after + 1;
    } else {
      int before = start - 1;
      while (before >= 0 && isSpace(b[before])) {
        before--;
      }
      if (before >= 0 && b[before] == ',') {
        from = before;
      }
    }
    byte[] out = new byte[b.length - (to - from)];
    System.arraycopy(b, 0, out, 0, from);
    System.arraycopy(b, to, out, from, b.length - to);
    return out;
  }

  private static boolean isSpace(byte c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
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
    return forUpstream(executionId, null, null);
  }

  /**
   * As {@link #withExecutionId}, with the trace context of the span the upstream request belongs to
   * set in {@code params._meta} too: {@code traceparent} (when not null) and {@code tracestate}
   * (when not null nor empty), each inserted or its value replaced (see the class comment). A value
   * that is not a valid W3C header value (printable ASCII) is left out.
   */
  public byte[] forUpstream(String executionId, String traceparent, String tracestate) {
    Splice s = splice;
    List<Edit> edits = new ArrayList<>(3);
    List<byte[]> members = new ArrayList<>(3);
    set(edits, members, McpNames.MetaKeys.EXECUTION_ID, token(executionId), s.idStart(), s.idEnd());
    if (traceparent != null && printable(traceparent)) {
      set(
          edits,
          members,
          McpNames.MetaKeys.TRACEPARENT,
          string(traceparent),
          s.traceparentStart(),
          s.traceparentEnd());
    }
    if (tracestate != null && !tracestate.isEmpty() && printable(tracestate)) {
      set(
          edits,
          members,
          McpNames.MetaKeys.TRACESTATE,
          string(tracestate),
          s.tracestateStart(),
          s.tracestateEnd());
    }
    if (!members.isEmpty()) {
      byte[] joined = join(members);
      if (s.metaStart() >= 0 && s.metaIsObject()) {
        // After the '{' of _meta; before every replaced value.
        int at = s.metaStart() + 1;
        edits.add(0, new Edit(at, at, s.metaEmpty() ? joined : concat(joined, bytes(","))));
      } else if (s.metaStart() >= 0) {
        // "_meta": null
        edits.add(new Edit(s.metaStart(), s.metaEnd(), concat(bytes("{"), joined, bytes("}"))));
      } else {
        byte[] withKey = concat(quoted("_meta"), bytes(":{"), joined, bytes("}"));
        edits.add(
            new Edit(
                s.paramsOpen(),
                s.paramsOpen(),
                s.paramsEmpty() ? withKey : concat(withKey, bytes(","))));
      }
    }
    edits.sort(java.util.Comparator.comparingInt(Edit::from));
    return apply(edits);
  }

  /** Replaces the value at {@code [start, end)}, or adds the member when {@code start < 0}. */
  private static void set(
      List<Edit> edits, List<byte[]> members, String key, byte[] value, int start, int end) {
    if (start >= 0) {
      edits.add(new Edit(start, end, value));
    } else {
      members.add(concat(quoted(key), bytes(":"), value));
    }
  }

  private byte[] apply(List<Edit> edits) {
    int n = len;
    for (Edit e : edits) {
      n += e.bytes().length - (e.to() - e.from());
    }
    byte[] out = new byte[n];
    int read = 0;
    int write = 0;
    for (Edit e : edits) {
      int keep = e.from() - read;
      System.arraycopy(source, off + read, out, write, keep);
      write += keep;
      System.arraycopy(e.bytes(), 0, out, write, e.bytes().length);
      write += e.bytes().length;
      read = e.to();
    }
    System.arraycopy(source, off + read, out, write, len - read);
    return out;
  }

  /** The JSON string of a token Tally made: printable ASCII without quote or backslash. */
  private static byte[] token(String s) {
    return quoted(s);
  }

  /** The JSON string of printable ASCII {@code s}, quote and backslash escaped. */
  private static byte[] string(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\');
      }
      b.append(c);
    }
    return b.append('"').toString().getBytes(StandardCharsets.US_ASCII);
  }

  /** Whether {@code s} is printable ASCII (the characters a W3C trace context header may hold). */
  private static boolean printable(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        return false;
      }
    }
    return true;
  }

  private static byte[] join(List<byte[]> members) {
    byte[] out = members.get(0);
    for (int i = 1; i < members.size(); i++) {
      out = concat(out, bytes(","), members.get(i));
    }
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
