package dev.tally.core.store.journal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.store.internal.ExecutionBinary;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Encodes {@link JournalEntry} records into a frame payload and decodes them back.
 *
 * <pre>
 * record = u8 type body
 * put    (type 3): u32 docLength, doc ({@link ExecutionBinary}),
 *                  i32 resultLength (-1: no result bytes in this record), result bytes
 * purge  (type 2): u16 idLength, id (US-ASCII)
 * rider  (type 4, format 4): u8 tagLength, tag, u64 offset, u32 length, bytes ({@link RiderSink})
 * put    (type 1, format version 1 only read): as type 3 with a JSON document ({@link
 *                  ExecutionJson})
 * </pre>
 *
 * A payload holds one or more records back to back. This release writes types 3, 2 and 4.
 */
final class RecordCodec {
  static final int TYPE_PUT = 1;
  static final int TYPE_PURGE = 2;
  static final int TYPE_PUT_BINARY = 3;
  static final int TYPE_RIDER = 4;

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonFactory FACTORY = MAPPER.getFactory();

  private RecordCodec() {}

  /** Appends one record to {@code out}. */
  static void encode(JournalEntry entry, FrameBuffer out) {
    if (entry instanceof JournalEntry.Put put && put.doc() != null) {
      encodePut(put.doc(), put.result(), out);
    } else if (entry instanceof JournalEntry.Put put) {
      out.write(TYPE_PUT_BINARY);
      int lengthAt = out.reserveInt();
      int start = out.size();
      ExecutionBinary.write(out, put.execution());
      out.putIntAt(lengthAt, out.size() - start);
      putResult(put.result(), out);
    } else {
      JournalEntry.Purge purge = (JournalEntry.Purge) entry;
      byte[] id = purge.id().value().getBytes(StandardCharsets.US_ASCII);
      out.write(TYPE_PURGE);
      out.putShort(id.length);
      out.write(id, 0, id.length);
    }
  }

  /** Appends a rider record (see {@link RiderSink}). */
  static void encodeRider(
      byte[] tag, long offset, byte[] bytes, int from, int length, FrameBuffer out) {
    if (tag.length == 0 || tag.length > RiderSink.MAX_TAG_BYTES) {
      throw new IllegalArgumentException("rider tag of " + tag.length + " bytes (1 to 255)");
    }
    if (offset < 0 || length < 0 || from < 0 || from + length > bytes.length) {
      throw new IllegalArgumentException("rider range out of bounds");
    }
    out.write(TYPE_RIDER);
    out.write(tag.length);
    out.write(tag, 0, tag.length);
    out.putLong(offset);
    out.putInt(length);
    out.write(bytes, from, length);
  }

  /** The bytes a rider record with a tag of {@code tagLength} and {@code length} bytes takes. */
  static int riderRecordBytes(int tagLength, int length) {
    return 1 + 1 + tagLength + 8 + 4 + length;
  }

  /** Appends a put record from a document already encoded (a packed record, compaction). */
  static void encodePut(byte[] doc, byte[] result, FrameBuffer out) {
    out.write(TYPE_PUT_BINARY);
    out.putInt(doc.length);
    out.write(doc, 0, doc.length);
    putResult(result, out);
  }

  /**
   * The document of the put record that starts at {@code buf[start]}, as {@link #encode} wrote it.
   */
  static byte[] docOf(byte[] buf, int start) {
    int length = JournalFormat.readInt(buf, start + 1);
    return java.util.Arrays.copyOfRange(buf, start + 5, start + 5 + length);
  }

  private static void putResult(byte[] result, FrameBuffer out) {
    out.putInt(result == null ? -1 : result.length);
    if (result != null) {
      out.write(result, 0, result.length);
    }
  }

  /** A payload could not be decoded; {@link #at} is the record's offset within the payload. */
  static final class DecodeException extends Exception {
    private static final long serialVersionUID = 1L;
    final int at;

    DecodeException(int at, String message, Throwable cause) {
      super(message, cause, false, false);
      this.at = at;
    }
  }

  /** Receives each decoded record with the number of bytes it took. */
  interface Sink {
    void accept(JournalEntry entry, int encodedBytes);

    /** A rider record; ignored unless overridden (the bytes are only valid during the call). */
    default void rider(byte[] tag, long offset, byte[] bytes, int from, int length) {}
  }

  /**
   * Appends one record with a JSON document (record type 1, what format version 1 wrote); kept for
   * tests that read old journals.
   */
  static void encodeJson(JournalEntry.Put put, FrameBuffer out) throws IOException {
    out.write(TYPE_PUT);
    int lengthAt = out.reserveInt();
    int start = out.size();
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
      ExecutionJson.write(g, put.execution());
    }
    out.putIntAt(lengthAt, out.size() - start);
    byte[] result = put.result();
    out.putInt(result == null ? -1 : result.length);
    if (result != null) {
      out.write(result, 0, result.length);
    }
  }

  /** Decodes every record of a payload in order. */
  static void decode(byte[] buf, int offset, int length, Sink sink) throws DecodeException {
    int p = offset;
    int end = offset + length;
    while (p < end) {
      int start = p;
      int at = start - offset;
      int type = buf[p++] & 0xff;
      try {
        if (type == TYPE_PUT || type == TYPE_PUT_BINARY) {
          int docLength = readInt(buf, p, end, at);
          p += 4;
          check(docLength >= 0 && docLength <= end - p, at, "document length out of range");
          Execution doc =
              type == TYPE_PUT
                  ? ExecutionJson.read(MAPPER.readTree(buf, p, docLength))
                  : ExecutionBinary.read(buf, p, docLength);
          byte[] binary =
              type == TYPE_PUT_BINARY ? java.util.Arrays.copyOfRange(buf, p, p + docLength) : null;
          p += docLength;
          int resultLength = readInt(buf, p, end, at);
          p += 4;
          check(resultLength >= -1 && resultLength <= end - p, at, "result length out of range");
          byte[] result = null;
          if (resultLength >= 0) {
            result = java.util.Arrays.copyOfRange(buf, p, p + resultLength);
            p += resultLength;
          }
          sink.accept(new JournalEntry.Put(doc, result, binary), p - start);
        } else if (type == TYPE_PURGE) {
          check(end - p >= 2, at, "truncated purge record");
          int idLength = ((buf[p] & 0xff) << 8) | (buf[p + 1] & 0xff);
          p += 2;
          check(idLength <= end - p, at, "id length out of range");
          String id = new String(buf, p, idLength, StandardCharsets.US_ASCII);
          p += idLength;
          check(ExecutionId.isValid(id), at, "purge record with a malformed execution id");
          sink.accept(new JournalEntry.Purge(new ExecutionId(id)), p - start);
        } else if (type == TYPE_RIDER) {
          check(end - p >= 1, at, "truncated rider record");
          int tagLength = buf[p++] & 0xff;
          check(tagLength > 0 && tagLength <= end - p, at, "rider tag length out of range");
          byte[] tag = java.util.Arrays.copyOfRange(buf, p, p + tagLength);
          p += tagLength;
          check(end - p >= 12, at, "truncated rider record");
          long fileOffset = JournalFormat.readLong(buf, p);
          p += 8;
          int riderLength = JournalFormat.readInt(buf, p);
          p += 4;
          check(fileOffset >= 0, at, "rider offset out of range");
          check(riderLength >= 0 && riderLength <= end - p, at, "rider length out of range");
          sink.rider(tag, fileOffset, buf, p, riderLength);
          p += riderLength;
        } else {
          throw new DecodeException(
              at, "unknown record type " + type + " (written by a newer release?)", null);
        }
      } catch (JsonProcessingException e) {
        // Jackson's message may quote the document; it never leaves this class.
        throw new DecodeException(at, "malformed execution JSON", null);
      } catch (IOException | IllegalArgumentException | NullPointerException e) {
        // Our own messages name the field; causes (a parser's) might quote a value.
        throw new DecodeException(at, "bad execution record: " + e.getMessage(), null);
      }
    }
  }

  private static int readInt(byte[] buf, int p, int end, int start) throws DecodeException {
    check(end - p >= 4, start, "truncated record");
    return JournalFormat.readInt(buf, p);
  }

  private static void check(boolean ok, int at, String message) throws DecodeException {
    if (!ok) {
      throw new DecodeException(at, message, null);
    }
  }
}
