package dev.tally.sidecar;

import java.time.Duration;

/**
 * What one client, and all clients together, may hold of a listener (the MCP port and the admin
 * port each apply these on their own): connections, time and buffered bytes. Defaults stop a
 * slowloris or a crowd of idle sockets without touching a well-behaved client.
 *
 * @param maxConnections open connections a port accepts; the next is closed at once ({@code
 *     sidecar.maxConnections}, default {@value #DEFAULT_MAX_CONNECTIONS})
 * @param maxConnectionsPerClient open connections one remote address may hold on a port ({@code
 *     sidecar.maxConnectionsPerClient}, default {@value #DEFAULT_MAX_CONNECTIONS_PER_CLIENT})
 * @param headerTimeout longest a new connection may take to send a complete request head; a
 *     connection that sends nothing, or trickles a header, is closed ({@code
 *     sidecar.headerTimeout}, default {@link #DEFAULT_HEADER_TIMEOUT})
 * @param idleTimeout longest a kept-alive connection may sit between two requests ({@code
 *     sidecar.idleTimeout}, default {@link #DEFAULT_IDLE_TIMEOUT}); a request in progress, such as
 *     a long SSE stream, is never idle; a client that took none of its last answer's unsent bytes
 *     for this long loses the connection and the bytes
 * @param bodyTimeout longest a request body may take to arrive whole, else 408 and the connection
 *     closes ({@code sidecar.requestBodyTimeout}, default {@link #DEFAULT_BODY_TIMEOUT})
 * @param maxBufferedBytes request-body bytes all connections of a port may hold at once while their
 *     requests are in progress; a body that would pass it is refused with 503 {@code OVERLOADED}
 *     ({@code sidecar.maxBufferedRequestBytes}, default 0: a quarter of the heap, at most 256 MiB).
 *     A body buffer grows with the bytes received, never with the {@code Content-Length} declared
 * @param maxUndeliveredBytes bytes of SSE events a client that stopped reading may leave queued on
 *     its connection; past them the connection is closed and the stream kept for resumption ({@code
 *     sidecar.maxUndeliveredBytes}, default {@value #DEFAULT_MAX_UNDELIVERED_BYTES})
 * @param h2c whether HTTP/2 over cleartext (prior knowledge or {@code Upgrade: h2c}) is accepted
 *     ({@code sidecar.h2c}, default false); the same limits and 413s apply to it
 */
public record ClientLimits(
    int maxConnections,
    int maxConnectionsPerClient,
    Duration headerTimeout,
    Duration idleTimeout,
    Duration bodyTimeout,
    long maxBufferedBytes,
    long maxUndeliveredBytes,
    boolean h2c) {
  public static final int DEFAULT_MAX_CONNECTIONS = 1024;
  public static final int DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 256;
  public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_BODY_TIMEOUT = Duration.ofSeconds(30);
  public static final long DEFAULT_MAX_UNDELIVERED_BYTES = 8L << 20;

  /** The cap {@link #effectiveMaxBufferedBytes()} puts on the automatic budget. */
  public static final long AUTO_BUFFERED_BYTES_CAP = 256L << 20;

  /** Every default. */
  public static final ClientLimits DEFAULT =
      new ClientLimits(
          DEFAULT_MAX_CONNECTIONS,
          DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
          DEFAULT_HEADER_TIMEOUT,
          DEFAULT_IDLE_TIMEOUT,
          DEFAULT_BODY_TIMEOUT,
          0,
          DEFAULT_MAX_UNDELIVERED_BYTES,
          false);

  public ClientLimits {
    require(maxConnections > 0, "sidecar.maxConnections", maxConnections, "a positive count");
    require(
        maxConnectionsPerClient > 0 && maxConnectionsPerClient <= maxConnections,
        "sidecar.maxConnectionsPerClient",
        maxConnectionsPerClient,
        "a positive count, at most sidecar.maxConnections (" + maxConnections + ")");
    positive(headerTimeout, "sidecar.headerTimeout");
    positive(idleTimeout, "sidecar.idleTimeout");
    positive(bodyTimeout, "sidecar.requestBodyTimeout");
    require(
        maxBufferedBytes >= 0,
        "sidecar.maxBufferedRequestBytes",
        maxBufferedBytes,
        "0 (a quarter of the heap) or a positive size");
    require(
        maxUndeliveredBytes > 0,
        "sidecar.maxUndeliveredBytes",
        maxUndeliveredBytes,
        "a positive size");
  }

  /**
   * {@link #maxBufferedBytes()}, or when it is 0 a quarter of this JVM's maximum heap, at most
   * {@value #AUTO_BUFFERED_BYTES_CAP} bytes.
   */
  public long effectiveMaxBufferedBytes() {
    if (maxBufferedBytes > 0) {
      return maxBufferedBytes;
    }
    return Math.max(
        1L << 20, Math.min(AUTO_BUFFERED_BYTES_CAP, Runtime.getRuntime().maxMemory() / 4));
  }

  /** These limits with {@code h2c} changed. */
  public ClientLimits withH2c(boolean on) {
    return new ClientLimits(
        maxConnections,
        maxConnectionsPerClient,
        headerTimeout,
        idleTimeout,
        bodyTimeout,
        maxBufferedBytes,
        maxUndeliveredBytes,
        on);
  }

  private static void require(boolean ok, String key, Object value, String expected) {
    if (!ok) {
      throw new IllegalArgumentException(key + ": " + value + " (expected: " + expected + ")");
    }
  }

  private static void positive(Duration d, String key) {
    require(d != null && !d.isNegative() && !d.isZero(), key, d, "a positive duration");
  }
}
