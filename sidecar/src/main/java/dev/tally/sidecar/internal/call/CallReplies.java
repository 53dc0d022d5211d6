package dev.tally.sidecar.internal.call;

import dev.tally.core.call.CallReply;

/** The JSON-RPC message core's answer or refusal carries, for where only a message fits. */
final class CallReplies {
  private CallReplies() {}

  /** The message of an {@link CallReply.Answer} or a {@link CallReply.Refusal}. */
  static byte[] message(CallReply told) {
    if (told instanceof CallReply.Answer a) {
      return a.message();
    }
    if (told instanceof CallReply.Refusal r) {
      return r.message();
    }
    throw new IllegalArgumentException("not an answer or a refusal: " + told.getClass().getName());
  }
}
