package dev.tally.core.mcp;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Splits a JSON-RPC batch (a top-level array that {@link BodyClassifier} accepted) into its
 * elements and classifies each one with the rules of a single message, so that every {@code
 * tools/call} can go through the gate on its own (docs/tool-results.md, "Batches"). Thread-safe.
 *
 * <p>Implementation note: JSON-RPC 2.0 §6 — an element that is not a valid request gets its own
 * error response while the others proceed. Problems that make the whole batch ambiguous — no
 * element, more than {@code maxElements}, two requests with the same id — refuse the batch; so does
 * a batch under a protocol version that has none ({@link ProtocolVersions#allowsBatch}).
 */
public final class BatchSplitter {
  private final BodyClassifier classifier;
  private final int maxElements;

  private BatchSplitter(BodyClassifier classifier, int maxElements) {
    this.classifier = classifier;
    this.maxElements = maxElements;
  }

  /** A splitter that refuses batches of more than {@code maxElements} elements. */
  public static BatchSplitter create(BodyClassifier classifier, int maxElements) {
    Objects.requireNonNull(classifier, "classifier");
    if (maxElements < 1) {
      throw new IllegalArgumentException("maxElements: " + maxElements + " (expected: >= 1)");
    }
    return new BatchSplitter(classifier, maxElements);
  }

  public int maxElements() {
    return maxElements;
  }

  /**
   * The refusal of a batch sent under {@code protocolVersion} (the {@code MCP-Protocol-Version}
   * header, may be null), or {@code null} when batches are allowed there.
   */
  public static TallyError refusalFor(String protocolVersion) {
    if (ProtocolVersions.allowsBatch(protocolVersion)) {
      return null;
    }
    return TallyError.of(
        TallyError.Code.INVALID_REQUEST,
        "JSON-RPC batches are not part of MCP protocol versions from "
            + ProtocolVersions.NO_BATCH
            + " on (MCP-Protocol-Version names a later one); send each message as its own"
            + " request");
  }

  /** Splits the batch in {@code len} bytes of {@code body} from {@code off}; never throws. */
  public BatchSplit split(byte[] body, int off, int len) {
    List<BatchElement> out = new ArrayList<>();
    try (JsonParser p = classifier.json().scan(body, off, len)) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        return BatchSplit.refused(
            TallyError.Code.INVALID_REQUEST, "request body: not a JSON-RPC batch");
      }
      JsonToken t;
      while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
        if (t == null) {
          return BatchSplit.refused(
              TallyError.Code.PARSE_ERROR, "request body: the batch array is not closed");
        }
        if (out.size() == maxElements) {
          return BatchSplit.refused(
              TallyError.Code.INVALID_REQUEST,
              "request body: the batch has more than sidecar.maxBatchSize ("
                  + maxElements
                  + ") elements");
        }
        int index = out.size();
        int start = (int) p.currentTokenLocation().getByteOffset();
        boolean object = t == JsonToken.START_OBJECT;
        p.skipChildren();
        int end = (int) p.currentLocation().getByteOffset();
        out.add(object ? classify(index, body, off + start, end - start) : notObject(index));
      }
    } catch (IOException e) {
      // The classifier accepted the body, so this is not reached for well-formed input.
      return BatchSplit.refused(TallyError.Code.PARSE_ERROR, "request body: malformed JSON");
    }
    if (out.isEmpty()) {
      return BatchSplit.refused(
          TallyError.Code.INVALID_REQUEST,
          "request body: empty batch (expected: at least one JSON-RPC message)");
    }
    String dup = duplicateId(out);
    if (dup != null) {
      return BatchSplit.refused(TallyError.Code.INVALID_REQUEST, "request body: " + dup);
    }
    return new BatchSplit(List.copyOf(out), null);
  }

  /** Splits a whole array. */
  public BatchSplit split(byte[] body) {
    return split(body, 0, body.length);
  }

  private static BatchElement notObject(int index) {
    return invalid(index, null, "batch element " + index + ": not a JSON-RPC object");
  }

  private static BatchElement invalid(int index, BodyScan scan, String message) {
    return new BatchElement(
        index,
        BatchElement.Kind.INVALID,
        scan,
        0,
        0,
        TallyError.of(TallyError.Code.INVALID_REQUEST, message));
  }

  private BatchElement classify(int index, byte[] body, int off, int len) {
    BodyScan s = classifier.classify(body, off, len, "batch element " + index + ": ");
    if (s.shape() == BodyScan.Shape.REFUSED) {
      return new BatchElement(index, BatchElement.Kind.INVALID, s, 0, 0, s.problem());
    }
    if (s.shape() == BodyScan.Shape.BATCH) {
      return invalid(index, null, "batch element " + index + ": a batch inside a batch");
    }
    if (McpNames.Methods.INITIALIZE.equals(s.method())) {
      // Its answer carries the new session's header, which a merged answer cannot.
      return invalid(
          index,
          s,
          "batch element " + index + ": an initialize request, which must not be part of a batch");
    }
    BatchElement.Kind kind =
        switch (s.kind()) {
          case REQUEST, NOTIFICATION ->
              McpNames.Methods.TOOLS_CALL.equals(s.method())
                  ? BatchElement.Kind.TOOLS_CALL
                  : s.kind() == BodyScan.Kind.REQUEST
                      ? BatchElement.Kind.REQUEST
                      : BatchElement.Kind.NOTIFICATION;
          case RESPONSE -> BatchElement.Kind.RESPONSE;
        };
    return new BatchElement(index, kind, s, off, len, null);
  }

  /** Two requests with one id would make the merged answer ambiguous. */
  private static String duplicateId(List<BatchElement> elements) {
    Map<String, Integer> seen = new HashMap<>();
    for (BatchElement e : elements) {
      if (e.kind() == BatchElement.Kind.RESPONSE || e.kind() == BatchElement.Kind.NOTIFICATION) {
        continue;
      }
      JsonNode id = e.id();
      if (id == null || id.isNull()) {
        continue;
      }
      String key = id.isNumber() ? "n" + id.bigIntegerValue() : "s" + id.textValue();
      Integer prior = seen.putIfAbsent(key, e.index());
      if (prior != null) {
        return "elements "
            + prior
            + " and "
            + e.index()
            + " of the batch share one JSON-RPC id (expected: a distinct id per request)";
      }
    }
    return null;
  }
}
