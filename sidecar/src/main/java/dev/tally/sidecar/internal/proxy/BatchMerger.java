package dev.tally.sidecar.internal.proxy;

import java.io.ByteArrayOutputStream;
import java.util.List;

/**
 * Joins the answers of a split batch into one JSON-RPC batch response (JSON-RPC 2.0 §6: an array
 * holding one response per request; notifications and client responses contribute none). Answers
 * keep the order of their requests, which the spec does not require but clients find easier.
 */
final class BatchMerger {
  private BatchMerger() {}

  /** The merged array, or {@code null} when no element has an answer (HTTP 202, no body). */
  static byte[] merge(List<BatchAnswer> answers) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write('[');
    boolean any = false;
    for (BatchAnswer a : answers) {
      if (a == null || a.message() == null) {
        continue;
      }
      if (any) {
        out.write(',');
      }
      out.writeBytes(a.message());
      any = true;
    }
    if (!any) {
      return null;
    }
    out.write(']');
    return out.toByteArray();
  }
}
