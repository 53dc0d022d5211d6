package dev.tally.core.store.internal;

import dev.tally.core.contract.ToolClass;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.execution.ResultRef;
import dev.tally.core.execution.RpcError;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * The compact binary document of an {@link Execution} in a journal record (record type 3, format
 * version 2; {@code docs/journal-format.md}). Integers are big-endian, strings are {@code i32 n}
 * then n ASCII bytes (n ≥ 0) or −n UTF-16BE code units (n < 0; any Java string round-trips),
 * instants are {@code i64 epochSecond ‖ i32 nano}, enumerations their wire names.
 *
 * <pre>
 * doc = u8 docVersion (1)  u8 flags  str id  i64 version  str matchKey  str matchKind  str actor
 *       str tool  str toolClass  str fingerprint  str intentScope  str state
 *       u8 timelineCount (str state, instant at)*  instant holdUntil  instant retainUntil
 *       [flags&1: str leaseOwner instant leaseExpiresAt]  [flags&2: i32 targetStatus]
 *       [flags&4: i32 errorCode str errorMessage]  [flags&8: i32 resultBytes]
 *       str summary  (anything after this, up to the document length, is ignored)
 * flags: 1 lease, 2 targetStatus, 4 error, 8 result, 16 result.retained, 32 result.isError,
 *        64 awaitingInput
 * </pre>
 *
 * Fields are only ever appended at the end, which older readers skip; a document whose version is
 * newer than {@value #VERSION} is refused.
 */
public final class ExecutionBinary {
  public static final int VERSION = 1;

  private static final int LEASE = 1;
  private static final int TARGET_STATUS = 2;
  private static final int ERROR = 4;
  private static final int RESULT = 8;
  private static final int RETAINED = 16;
  private static final int IS_ERROR = 32;
  private static final int AWAITING_INPUT = 64;

  private static final ExecutionState[] STATES = ExecutionState.values();
  private static final String[] MATCH_KINDS = new String[MatchKind.values().length];

  static {
    for (MatchKind k : MatchKind.values()) {
      MATCH_KINDS[k.ordinal()] = k.name().toLowerCase(Locale.ROOT);
    }
  }

  private ExecutionBinary() {}

  /** The document of {@code e} on its own (the packed form of a retained record). */
  public static byte[] pack(Execution e) {
    ByteWriter out = new ByteWriter(512);
    write(out, e);
    return out.toByteArray();
  }

  /** The record packed by {@link #pack}. */
  public static Execution unpack(byte[] doc) {
    return read(doc, 0, doc.length);
  }

  /** Appends the document of {@code e}. */
  public static void write(ByteWriter out, Execution e) {
    int flags = 0;
    if (e.lease() != null) {
      flags |= LEASE;
    }
    if (e.targetStatus() != null) {
      flags |= TARGET_STATUS;
    }
    if (e.error() != null) {
      flags |= ERROR;
    }
    if (e.result() != null) {
      flags |=
          RESULT | (e.result().retained() ? RETAINED : 0) | (e.result().isError() ? IS_ERROR : 0);
    }
    if (e.awaitingInput()) {
      flags |= AWAITING_INPUT;
    }
    out.write(VERSION);
    out.write(flags);
    out.putString(e.id().value());
    out.putLong(e.version());
    out.putString(e.matchKey());
    out.putString(MATCH_KINDS[e.matchKind().ordinal()]);
    out.putString(e.actor());
    out.putString(e.tool());
    out.putString(e.toolClass().wireName());
    out.putString(e.fingerprint());
    out.putString(e.intentScope());
    out.putString(e.state().wireName());
    Map<ExecutionState, Instant> timeline = e.timeline();
    out.write(timeline.size());
    for (ExecutionState s : STATES) { // not entrySet(): its cached views would stay with the record
      Instant at = timeline.get(s);
      if (at != null) {
        out.putString(s.wireName());
        putInstant(out, at);
      }
    }
    putInstant(out, e.holdUntil());
    putInstant(out, e.retainUntil());
    if (e.lease() != null) {
      out.putString(e.lease().owner());
      putInstant(out, e.lease().expiresAt());
    }
    if (e.targetStatus() != null) {
      out.putInt(e.targetStatus());
    }
    if (e.error() != null) {
      out.putInt(e.error().code());
      out.putString(e.error().message());
    }
    if (e.result() != null) {
      out.putInt(e.result().bytes());
    }
    out.putString(e.summary());
  }

  private static void putInstant(ByteWriter out, Instant t) {
    out.putLong(t.getEpochSecond());
    out.putInt(t.getNano());
  }

  /**
   * Reads the document in {@code buf[offset, offset+length)}; throws {@link
   * IllegalArgumentException} naming the field (never its value, except for enum names) when it is
   * cut short or malformed.
   */
  public static Execution read(byte[] buf, int offset, int length) {
    Reader r = new Reader(buf, offset, offset + length);
    int v = r.u8("docVersion");
    if (v > VERSION || v < 1) {
      throw new IllegalArgumentException(
          "execution document version " + v + " (this release reads up to " + VERSION + ")");
    }
    int flags = r.u8("flags");
    String id = r.string("id");
    if (!ExecutionId.isValid(id)) {
      throw new IllegalArgumentException("/id: not an execution id");
    }
    long version = r.i64("version");
    if (version < 1) {
      throw new IllegalArgumentException("/version: expected a positive integer");
    }
    String matchKey = r.string("matchKey");
    MatchKind matchKind = matchKind(r.string("matchKind"));
    String actor = r.string("actor");
    String tool = r.string("tool");
    ToolClass toolClass = toolClass(r.string("toolClass"));
    String fingerprint = r.string("fingerprint");
    String intentScope = r.string("intentScope");
    ExecutionState state = state("/state", r.string("state"));
    int n = r.u8("timeline");
    EnumMap<ExecutionState, Instant> timeline = new EnumMap<>(ExecutionState.class);
    for (int i = 0; i < n; i++) {
      ExecutionState s = state("/timeline", r.string("timeline"));
      timeline.put(s, r.instant("timeline/" + s.wireName()));
    }
    Instant holdUntil = r.instant("holdUntil");
    Instant retainUntil = r.instant("retainUntil");
    Lease lease = null;
    if ((flags & LEASE) != 0) {
      lease = new Lease(r.string("lease/owner"), r.instant("lease/expiresAt"));
    }
    Integer targetStatus = (flags & TARGET_STATUS) != 0 ? r.i32("targetStatus") : null;
    RpcError error = null;
    if ((flags & ERROR) != 0) {
      error = new RpcError(r.i32("error/code"), r.string("error/message"));
    }
    ResultRef result = null;
    if ((flags & RESULT) != 0) {
      result =
          new ResultRef(r.i32("result/bytes"), (flags & RETAINED) != 0, (flags & IS_ERROR) != 0);
    }
    String summary = r.string("summary");
    return new Execution(
        new ExecutionId(id),
        version,
        matchKey,
        matchKind,
        actor,
        tool,
        toolClass,
        fingerprint,
        intentScope,
        state,
        timeline,
        holdUntil,
        retainUntil,
        lease,
        targetStatus,
        error,
        result,
        (flags & AWAITING_INPUT) != 0,
        summary);
  }

  /** The match kind with this wire name; throws {@link IllegalArgumentException} naming it. */
  public static MatchKind matchKind(String s) {
    for (MatchKind k : MatchKind.values()) {
      if (MATCH_KINDS[k.ordinal()].equals(s)) {
        return k;
      }
    }
    throw new IllegalArgumentException("/matchKind: unknown value " + quoted(s));
  }

  /** The tool class with this wire name; throws {@link IllegalArgumentException} naming it. */
  public static ToolClass toolClass(String s) {
    ToolClass c = ToolClass.fromWireName(s);
    if (c == null) {
      throw new IllegalArgumentException("/toolClass: unknown value " + quoted(s));
    }
    return c;
  }

  /** The state with this wire name; throws {@link IllegalArgumentException} naming it. */
  public static ExecutionState state(String pointer, String s) {
    for (ExecutionState st : STATES) {
      if (st.wireName().equals(s)) {
        return st;
      }
    }
    throw new IllegalArgumentException(pointer + ": unknown state " + quoted(s));
  }

  /** Enum names are ours, but a corrupt one is cut short so a log line stays one line. */
  private static String quoted(String s) {
    String shown = s.length() > 40 ? s.substring(0, 40) + "…" : s;
    return "\"" + shown.replaceAll("[^A-Za-z0-9_]", "?") + "\"";
  }

  /** Bounds-checked big-endian reads; errors name the field. */
  private static final class Reader {
    private final byte[] buf;
    private final int end;
    private int p;

    Reader(byte[] buf, int p, int end) {
      this.buf = buf;
      this.p = p;
      this.end = end;
    }

    private void need(long n, String field) {
      if (n < 0 || end - p < n) {
        throw new IllegalArgumentException("/" + field + ": cut short");
      }
    }

    int u8(String field) {
      need(1, field);
      return buf[p++] & 0xff;
    }

    int i32(String field) {
      need(4, field);
      int v = ByteWriter.readInt(buf, p);
      p += 4;
      return v;
    }

    long i64(String field) {
      need(8, field);
      long v =
          ((long) ByteWriter.readInt(buf, p) << 32)
              | (ByteWriter.readInt(buf, p + 4) & 0xffffffffL);
      p += 8;
      return v;
    }

    String string(String field) {
      int n = i32(field);
      if (n >= 0) {
        need(n, field);
        String s = new String(buf, p, n, StandardCharsets.ISO_8859_1);
        p += n;
        return s;
      }
      if (n == Integer.MIN_VALUE) {
        throw new IllegalArgumentException("/" + field + ": length out of range");
      }
      need(-2L * n, field);
      char[] chars = new char[-n];
      for (int i = 0; i < chars.length; i++) {
        chars[i] = (char) (((buf[p] & 0xff) << 8) | (buf[p + 1] & 0xff));
        p += 2;
      }
      return new String(chars);
    }

    Instant instant(String field) {
      long seconds = i64(field);
      int nano = i32(field);
      if (nano < 0 || nano > 999_999_999) {
        throw new IllegalArgumentException("/" + field + ": nanoseconds out of range");
      }
      try {
        return Instant.ofEpochSecond(seconds, nano);
      } catch (java.time.DateTimeException e) {
        throw new IllegalArgumentException("/" + field + ": instant out of range");
      }
    }
  }
}
