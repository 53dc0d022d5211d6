package dev.tally.telemetry;

import io.opentelemetry.api.common.Attributes;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The attribute sets of an instrument, built once per distinct key and then reused: building an
 * {@link Attributes} sorts and de-duplicates its pairs, which took ~2 % of a loaded sidecar's CPU
 * when done for every record of every call. Bounded: past {@link #MAX} distinct keys (tool names
 * come from clients) a set is built each time instead of kept, so a client inventing names cannot
 * grow the heap (the SDK's own cardinality limit then folds them into its overflow series).
 */
final class AttributeSets<K> {
  /** Distinct keys kept per instrument. */
  static final int MAX = 2048;

  private final Map<K, Attributes> sets = new ConcurrentHashMap<>();
  private final Function<K, Attributes> build;

  AttributeSets(Function<K, Attributes> build) {
    this.build = build;
  }

  /** The attributes for {@code key}. */
  Attributes of(K key) {
    Attributes a = sets.get(key);
    if (a != null) {
      return a;
    }
    a = build.apply(key);
    if (sets.size() < MAX) {
      sets.putIfAbsent(key, a);
    }
    return a;
  }
}
