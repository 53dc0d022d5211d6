package dev.tally.core.store.journal;

/**
 * Receives riders: bytes of another file (the audit journals) carried in the journal's frames so
 * that they become durable with the group's one fsync instead of needing an fsync of their own
 * (journal format 4; {@code docs/journal-format.md}). A rider says where its bytes belong: the
 * file, named by an opaque {@code tag} its owner chose (at most 255 bytes), and the byte {@code
 * offset} in that file. The store never interprets either.
 *
 * <p>A {@link CommitObserver} hands riders to the writer ({@link CommitObserver#collect}); at start
 * the store hands every rider still held by its segments to the sink given to {@link
 * JournalExecutionStore#open(JournalOptions, RiderSink)}, in the order they were written, so that
 * their owner can rewrite what a power loss took from its unforced files.
 */
@FunctionalInterface
public interface RiderSink {
  /** The most bytes a tag may have. */
  int MAX_TAG_BYTES = 255;

  /**
   * {@code length} bytes of {@code bytes}, from index {@code from}, belong at byte {@code offset}
   * of the file tagged {@code tag}. The arrays are only read during the call.
   */
  void accept(byte[] tag, long offset, byte[] bytes, int from, int length);
}
