package dev.tally.filter;

/** Sees a response body as the servlet writes it, and what became of each write and flush. */
interface BodyTap {
  /** Body bytes, in order, before they are handed to the container. */
  void bytes(byte[] b, int off, int len);

  /** Writing to the client failed: it is gone. */
  void writeFailed();

  /** A flush reached the container; {@code ok} false if it failed (the client is gone). */
  void flushed(boolean ok);

  /**
   * Called after {@link #bytes} and before those bytes go to the container: blocks (bounded) while
   * what they carry must not reach the client yet (an answer whose outcome is not durable).
   */
  default void beforeWrite() {}
}
