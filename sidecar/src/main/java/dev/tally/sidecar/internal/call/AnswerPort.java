package dev.tally.sidecar.internal.call;

import dev.tally.core.call.CallReply;
import dev.tally.core.call.Delivery;

/**
 * Where the answer to one {@code tools/call} goes: the one difference between a single call ({@link
 * ClientPort}, the client's HTTP response) and a call inside a batch ({@link SlotPort}, its slot in
 * the merged array). {@link CallPipeline} calls exactly one method, on the call's context.
 */
interface AnswerPort {
  /** Send the call upstream as the client sent it; its answer goes where this port puts answers. */
  void forward();

  /** Send the dispatched call upstream; its answer is recorded on the way. */
  void dispatch(CallReply.Dispatch dispatch);

  /** Tally's own complete answer. */
  void answer(byte[] message, Delivery delivery);

  /** A refusal. */
  void refuse(CallReply.Refusal refusal);
}
