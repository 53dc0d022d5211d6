package dev.tally.core.mcp;

import java.io.ByteArrayOutputStream;
import java.util.List;

/**
 * Joins the answers of a split batch into one JSON-RPC batch response (JSON-RPC 2.0 §6: an array
 * holding one response per request; notifications and client responses contribute none). Answers
 * keep the order of their requests, which the spec does not require but clients find easier.
 */
public final class BatchMerger {
  private BatchMerger() {}

  /**
   * The merged array of {@code messages} (each a complete JSON-RPC response; {@code null} entries
   * contribute nothing), or {@code null} when none has an answer (HTTP 202, no body).
   */
  public static byte[] merge(List<byte[]> messages) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write('[');
    boolean any = false;
    for (byte[] m : messages) {
      if (m == null) {
        continue;
      }
      if (any) {
        out.write(',');
      }
      out.writeBytes(m);
      any = true;
    }
    if (!any) {
      return null;
    }
    out.write(']');
    return out.toByteArray();
  }
}
