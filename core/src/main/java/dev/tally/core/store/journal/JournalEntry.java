package dev.tally.core.store.journal;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import java.util.Objects;

/** One record of the journal: the state of an execution after a change, or its purge. */
sealed interface JournalEntry {

  /** The id of the execution this record is about. */
  ExecutionId id();

  /**
   * The full record after a change, with the result bytes this change stored (null: none, and bytes
   * stored earlier stay if {@code execution.result().retained()}), and its {@link
   * dev.tally.core.store.internal.ExecutionBinary} document when one exists already (null: the
   * writer encodes it). Arrays are shared, never modified.
   */
  record Put(Execution execution, byte[] result, byte[] doc) implements JournalEntry {
    public Put {
      Objects.requireNonNull(execution, "execution");
    }

    Put(Execution execution, byte[] result) {
      this(execution, result, null);
    }

    /** This record with its document. */
    Put withDoc(byte[] document) {
      return new Put(execution, result, document);
    }

    @Override
    public ExecutionId id() {
      return execution.id();
    }
  }

  /** The record was purged by retention; nothing with this id follows. */
  record Purge(ExecutionId id) implements JournalEntry {
    public Purge {
      Objects.requireNonNull(id, "id");
    }
  }
}
