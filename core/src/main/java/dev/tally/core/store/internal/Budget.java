package dev.tally.core.store.internal;

/**
 * Accounts for the memory the table's records take and decides whether a new record may enter.
 * Called inside the table's atomic per-record sections, so it must not touch the table.
 */
interface Budget {
  /** About what a new record with a short key, actor and tool weighs, with some margin. */
  int TYPICAL_RECORD_WEIGHT = 2048;

  /** No bound: every record is admitted (the journal store keeps everything until purge). */
  Budget UNBOUNDED =
      new Budget() {
        @Override
        public void admit(Slot next) {}

        @Override
        public void replaced(Slot old, Slot next) {}

        @Override
        public void settle() {}

        @Override
        public boolean hasRoom() {
          return true;
        }

        @Override
        public long pinnedWeight() {
          return 0;
        }

        @Override
        public long evictableWeight() {
          return 0;
        }
      };

  /**
   * Accounts for a new record; throws {@link dev.tally.core.store.StoreException} with code {@code
   * UNAVAILABLE} when it does not fit, leaving the accounts unchanged.
   */
  void admit(Slot next);

  /** Accounts for replacing {@code old} (null: a new record) by {@code next} (null: removed). */
  void replaced(Slot old, Slot next);

  /** Brings the eviction bound in line with the accounts; called outside atomic sections. */
  void settle();

  /** Whether a typical new record would be admitted now. */
  boolean hasRoom();

  /** Estimated bytes held by records that must not be evicted. */
  long pinnedWeight();

  /** Estimated bytes held by records that may be evicted. */
  long evictableWeight();
}
