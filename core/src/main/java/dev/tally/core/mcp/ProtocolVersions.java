package dev.tally.core.mcp;

/**
 * The protocol versions whose rules differ, and the predicates both adapters decide by. Versions
 * are dates ({@code YYYY-MM-DD}) and compare as strings.
 */
public final class ProtocolVersions {
  /** The first version with per-request metadata headers, MRTR and no sessions. */
  public static final String MODERN = "2026-07-28";

  /** The first version without JSON-RPC batches (2025-03-26 is the only one with them). */
  public static final String NO_BATCH = "2025-06-18";

  /** The first version whose clients expect a priming event on SSE streams. */
  public static final String PRIMING = "2025-11-25";

  private ProtocolVersions() {}

  /** Whether {@code version} (a header value, may be null) belongs to the 2026-07-28 era. */
  public static boolean isModern(String version) {
    return version != null && version.compareTo(MODERN) >= 0;
  }

  /**
   * Whether a request with this {@code MCP-Protocol-Version} header (absent: 2025-03-26, as the
   * 2025-06-18 transport says a server should assume) may be a JSON-RPC batch.
   */
  public static boolean allowsBatch(String version) {
    return version == null || version.compareTo(NO_BATCH) < 0;
  }

  /** Whether a legacy-era client at {@code version} expects a priming event. */
  public static boolean expectsPriming(String version) {
    return version != null && !isModern(version) && version.compareTo(PRIMING) >= 0;
  }
}
