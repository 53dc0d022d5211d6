package dev.tally.sidecar;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * How often each client limit was hit, per port: the one metrics seam of {@link ClientLimits}.
 * Exposed as {@code tally_client_limit_hits_total{port,limit}}. Thread-safe.
 */
public final class LimitHits {
  /** The port a limit was hit on. */
  public enum Port {
    MCP,
    ADMIN
  }

  /** Which limit. Names are the metric's {@code limit} label. */
  public enum Limit {
    /** {@code sidecar.maxConnections}: a connection closed at accept. */
    MAX_CONNECTIONS("max_connections"),
    /** {@code sidecar.maxConnectionsPerClient}. */
    MAX_CONNECTIONS_PER_CLIENT("max_connections_per_client"),
    /** {@code sidecar.headerTimeout}: no complete request head in time. */
    HEADER_TIMEOUT("header_timeout"),
    /** {@code sidecar.idleTimeout}: a kept-alive connection sat unused. */
    IDLE_TIMEOUT("idle_timeout"),
    /** {@code sidecar.requestBodyTimeout}: 408. */
    BODY_TIMEOUT("request_body_timeout"),
    /** {@code limits.maxRequestBytes}: 413. */
    REQUEST_BYTES("max_request_bytes"),
    /** {@code sidecar.maxBufferedRequestBytes}: 503 OVERLOADED. */
    BUFFERED_BYTES("max_buffered_request_bytes"),
    /** {@code sidecar.maxUndeliveredBytes}: a client that stopped reading was disconnected. */
    UNDELIVERED_BYTES("max_undelivered_bytes"),
    /**
     * {@code sidecar.idleTimeout} after an answer the client stopped reading: no byte of it taken
     * for a whole period, the connection closed and the unsent bytes discarded.
     */
    STALLED_CLIENT("stalled_client"),
    /** RFC 9112 framing refused: 400 and close. */
    FRAMING("framing");

    private final String label;

    Limit(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  private final Map<Port, Map<Limit, LongAdder>> hits = new EnumMap<>(Port.class);

  public LimitHits() {
    for (Port p : Port.values()) {
      Map<Limit, LongAdder> m = new EnumMap<>(Limit.class);
      for (Limit l : Limit.values()) {
        m.put(l, new LongAdder());
      }
      hits.put(p, m);
    }
  }

  public void hit(Port port, Limit limit) {
    hits.get(port).get(limit).increment();
  }

  public long count(Port port, Limit limit) {
    return hits.get(port).get(limit).sum();
  }

  /**
   * Registers the counter {@code tally.client.limit_hits} (Prometheus {@code
   * tally_client_limit_hits_total}) with one series per port and limit.
   */
  public void register(dev.tally.core.observe.Meter meter) {
    meter.counterSeries(
        "tally.client.limit_hits",
        "times a client limit (connections, timeouts, buffered bytes, framing) was hit",
        "",
        series -> {
          for (Port p : Port.values()) {
            for (Limit l : Limit.values()) {
              series.record(
                  count(p, l),
                  Map.of("port", p.name().toLowerCase(java.util.Locale.ROOT), "limit", l.label()));
            }
          }
        });
  }
}
