package dev.tally.sidecar.internal.stream;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;

/** Where a stream's events go: one client connection. */
public interface EventSink {
  /** Writes encoded events; the future fails if the client is gone. */
  Future<Void> write(Buffer bytes);

  /** Ends the client's response. */
  void end();
}
