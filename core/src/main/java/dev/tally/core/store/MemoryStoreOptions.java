package dev.tally.core.store;

/**
 * Configuration of {@link MemoryExecutionStore} ({@code --store memory}).
 *
 * @param maxWeightBytes the bound on the estimated heap the store's records and results take
 *     (default {@value #DEFAULT_MAX_WEIGHT_BYTES}, 256 MiB)
 * @param maxResultBytes results larger than this are not kept, only their size (default {@value
 *     #DEFAULT_MAX_RESULT_BYTES}, 1 MiB)
 */
public record MemoryStoreOptions(long maxWeightBytes, int maxResultBytes) {
  public static final long DEFAULT_MAX_WEIGHT_BYTES = 256L * 1024 * 1024;
  public static final int DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;

  public MemoryStoreOptions {
    if (maxWeightBytes <= 0) {
      throw new IllegalArgumentException(
          "maxWeightBytes: " + maxWeightBytes + " (expected: a positive number of bytes)");
    }
    if (maxResultBytes < 0) {
      throw new IllegalArgumentException(
          "maxResultBytes: " + maxResultBytes + " (expected: zero or more bytes)");
    }
  }

  /** The defaults: 256 MiB in all, results up to 1 MiB. */
  public static MemoryStoreOptions defaults() {
    return new MemoryStoreOptions(DEFAULT_MAX_WEIGHT_BYTES, DEFAULT_MAX_RESULT_BYTES);
  }

  public MemoryStoreOptions withMaxWeightBytes(long bytes) {
    return new MemoryStoreOptions(bytes, maxResultBytes);
  }

  public MemoryStoreOptions withMaxResultBytes(int bytes) {
    return new MemoryStoreOptions(maxWeightBytes, bytes);
  }
}
