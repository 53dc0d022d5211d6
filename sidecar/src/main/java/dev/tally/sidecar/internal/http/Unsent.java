package dev.tally.sidecar.internal.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * The bytes a connection still has to send, and the one close that does not wait for them. Vert.x 5
 * queues {@code close()}, {@code shutdown(0)} and a response's {@code reset()} behind the writes
 * already queued: a client that never reads would keep its connection, and the answer queued for
 * it, for ever. Closing at the connection's channel context discards them; Netty fails the pending
 * writes, so the answer's delivery is recorded as not written and its stored result stays for the
 * retry.
 *
 * <p>Both need Vert.x's {@link ConnectionBase} (the connection class of 5.0.x); on any other
 * connection this reports nothing unsent and closes as Vert.x does. {@code HostileClientsIT} checks
 * the behaviour against the Vert.x in use.
 */
final class Unsent {
  private Unsent() {}

  /** Bytes written to {@code c} that its peer has not taken yet; 0 when unknown. */
  static long bytes(HttpConnection c) {
    if (!(c instanceof ConnectionBase base)) {
      return 0;
    }
    Channel ch = base.channel();
    ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
    return out == null ? 0 : out.totalPendingWriteBytes();
  }

  /** Closes {@code c} now, discarding what it has not sent. */
  static void discardAndClose(HttpConnection c) {
    if (c instanceof ConnectionBase base) {
      base.channelHandlerContext().close();
    } else {
      c.close();
    }
  }
}
