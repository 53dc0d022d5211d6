package dev.tally.core.testing;

import dev.tally.core.store.StoreException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waits for stages in tests, bounded, and rethrows their failure as it is. */
public final class Stages {
  /** Long enough for any store on a loaded machine; a hung stage fails the test, not the build. */
  public static final long TIMEOUT_SECONDS = 20;

  private Stages() {}

  /** The stage's value; its failure is rethrown unwrapped (a RuntimeException as it is). */
  public static <T> T await(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw rethrow(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    } catch (TimeoutException e) {
      throw new AssertionError("stage did not complete within " + TIMEOUT_SECONDS + "s", e);
    }
  }

  /** The failure of a stage that must fail. */
  public static Throwable failure(CompletionStage<?> stage) {
    try {
      Object value = await(stage);
      throw new AssertionError("expected the stage to fail, but it completed with " + value);
    } catch (RuntimeException e) {
      return e;
    }
  }

  /** The code of the {@link StoreException} a stage must fail with. */
  public static StoreException.Code storeCode(CompletionStage<?> stage) {
    Throwable t = failure(stage);
    if (t instanceof StoreException se) {
      return se.code();
    }
    throw new AssertionError("expected a StoreException, got " + t, t);
  }

  private static RuntimeException rethrow(Throwable t) {
    Throwable cause = t;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof RuntimeException re) {
      return re;
    }
    if (cause instanceof Error err) {
      throw err;
    }
    return new IllegalStateException(cause);
  }
}
