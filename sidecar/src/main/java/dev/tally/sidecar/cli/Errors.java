package dev.tally.sidecar.cli;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** One-line descriptions of start-up failures, without stack traces. */
final class Errors {
  private Errors() {}

  static String describe(Throwable t) {
    while ((t instanceof ExecutionException || t instanceof CompletionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    String m = t.getMessage();
    return m == null ? t.getClass().getSimpleName() : m;
  }
}
