package dev.tally.core.call;

import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.mcp.ToolListing;
import dev.tally.core.mcp.WireJson;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The upstream's tool catalogue, known before the first call: what {@link ListingLearner} learned,
 * from the adapter's own listing ({@link Lister}: the sidecar's own MCP session, the filter's
 * application), from clients' {@code tools/list} answers, and from the catalogue kept with the
 * store ({@link Keeper}) across restarts. Configuration still wins over everything learned here
 * (ARCHITECTURE.md §4).
 *
 * <p>When it lists: at {@link #start()} (after the kept catalogue was restored), on a server's
 * {@code notifications/tools/list_changed} ({@link #listChanged()}), and for a call of a tool that
 * is neither configured nor known ({@link #awaitKnown}), at most once per {@link
 * Options#refreshInterval()} for unknown names. Such a call waits for that listing, at most {@link
 * Options#unknownToolWait()}, then is decided with what is known (an unknown tool is {@code
 * irreversible}: the safe default). One listing at a time; a request for another while one runs
 * makes one more run after it. A listing that fails (the upstream wants credentials, is down) is
 * logged once as a warning; learning from clients goes on as before. Thread-safe.
 */
public final class ToolCatalogue {
  private static final System.Logger LOG = System.getLogger(ToolCatalogue.class.getName());

  /** The adapter's own way to list the upstream's tools. */
  @FunctionalInterface
  public interface Lister {
    /**
     * The {@code result} object of every page of a complete {@code tools/list}, in order. Fails
     * with a {@link ListingFailed} (its message is logged) or any exception (only its class is).
     */
    CompletionStage<List<byte[]>> list();
  }

  /** Where the catalogue is kept across restarts. */
  public interface Keeper {
    /** Keeps nothing. */
    Keeper NONE =
        new Keeper() {
          @Override
          public byte[] load() {
            return null;
          }

          @Override
          public void keep(byte[] document) {}
        };

    /** The kept document, or {@code null} if there is none. */
    byte[] load() throws java.io.IOException;

    /** Keeps {@code document}, replacing the kept one; may finish later (the latest wins). */
    void keep(byte[] document);
  }

  /** Why a listing failed, in words that may be logged: no secret, no value. */
  public static final class ListingFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ListingFailed(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * How the catalogue lists and keeps.
   *
   * @param lister the adapter's own listing, or {@code null} (learn from clients only)
   * @param keeper where it is kept ({@link Keeper#NONE}: nowhere)
   * @param target the upstream's identity: a kept catalogue of another target is ignored
   * @param clock times the refresh interval
   * @param unknownToolWait how long a call of an unknown tool waits for a listing
   * @param refreshInterval the least time between listings made for unknown names
   */
  public record Options(
      Lister lister,
      Keeper keeper,
      String target,
      InstantSource clock,
      Duration unknownToolWait,
      Duration refreshInterval) {
    public static final Duration DEFAULT_UNKNOWN_TOOL_WAIT = Duration.ofSeconds(2);
    public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(10);

    public Options {
      Objects.requireNonNull(keeper, "keeper");
      Objects.requireNonNull(target, "target");
      Objects.requireNonNull(clock, "clock");
      Objects.requireNonNull(unknownToolWait, "unknownToolWait");
      Objects.requireNonNull(refreshInterval, "refreshInterval");
    }

    /** No listing of its own, nothing kept: learns from clients' {@code tools/list} only. */
    public static Options clientsOnly(String target) {
      return new Options(
          null,
          Keeper.NONE,
          target,
          InstantSource.system(),
          DEFAULT_UNKNOWN_TOOL_WAIT,
          DEFAULT_REFRESH_INTERVAL);
    }

    /** These options with {@code l} as the adapter's own listing. */
    public Options withLister(Lister l) {
      return new Options(l, keeper, target, clock, unknownToolWait, refreshInterval);
    }

    /** These options keeping the catalogue in {@code k}. */
    public Options withKeeper(Keeper k) {
      return new Options(lister, k, target, clock, unknownToolWait, refreshInterval);
    }

    /** These options timing the refresh interval with {@code c}. */
    public Options withClock(InstantSource c) {
      return new Options(lister, keeper, target, c, unknownToolWait, refreshInterval);
    }
  }

  private final ListingLearner learner;
  private final ContractRegistry contracts;
  private final WireJson json;
  private final Options options;
  private CompletableFuture<Void> running;
  private boolean again;
  private Instant lastListed;
  private boolean started;
  private volatile boolean warned;

  ToolCatalogue(
      ListingLearner learner, ContractRegistry contracts, WireJson json, Options options) {
    this.learner = learner;
    this.contracts = contracts;
    this.json = json;
    this.options = options;
    learner.onChange(this::keep);
  }

  /** What this catalogue learns from. */
  public ListingLearner learner() {
    return learner;
  }

  /**
   * Restores the kept catalogue (synchronously: before the first call is decided), then lists the
   * upstream's tools, if there is a {@link Lister} (asynchronously). Later calls do nothing.
   */
  public void start() {
    synchronized (this) {
      if (started) {
        return;
      }
      started = true;
    }
    restore();
    if (options.lister() != null) {
      refresh();
    }
  }

  /**
   * What a call of {@code tool} must wait for before it is decided: {@code null} (nothing, the
   * common case: the tool is configured or known, there is no lister, or unknown names listed
   * recently), else a stage that completes (never exceptionally) once a listing finished or {@link
   * Options#unknownToolWait()} passed.
   */
  public CompletionStage<Void> awaitKnown(String tool) {
    if (tool == null
        || options.lister() == null
        || contracts.configured().containsKey(tool)
        || learner.knows(tool)) {
      return null;
    }
    CompletableFuture<Void> listing;
    synchronized (this) {
      listing = running;
      if (listing == null) {
        if (lastListed != null
            && options.clock().instant().isBefore(lastListed.plus(options.refreshInterval()))) {
          return null;
        }
        listing = list();
      }
    }
    CompletableFuture<Void> waited = new CompletableFuture<>();
    listing.whenComplete((v, e) -> waited.complete(null));
    return waited.completeOnTimeout(
        null, options.unknownToolWait().toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The upstream said its tools changed ({@code notifications/tools/list_changed}). */
  public void listChanged() {
    if (options.lister() != null) {
      refresh();
    }
  }

  /** Lists now, or once more after the listing that runs now; completes when that one ended. */
  public CompletionStage<Void> refresh() {
    synchronized (this) {
      if (running != null) {
        again = true;
        return running;
      }
      return list();
    }
  }

  /** Starts a listing; the caller holds the lock and saw none running. */
  private CompletableFuture<Void> list() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    running = done;
    CompletionStage<List<byte[]>> listed;
    try {
      listed = options.lister().list();
    } catch (RuntimeException e) {
      listed = CompletableFuture.failedFuture(e);
    }
    listed.whenComplete(
        (pages, err) -> {
          if (err == null && pages != null) {
            learner.replace(pages);
          } else {
            warnOnce(err);
          }
          boolean rerun;
          synchronized (this) {
            lastListed = options.clock().instant();
            running = null;
            rerun = again;
            again = false;
          }
          done.complete(null);
          if (rerun) {
            refresh();
          }
        });
    return done;
  }

  private void warnOnce(Throwable err) {
    if (warned) {
      return;
    }
    warned = true;
    Throwable cause =
        err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
    String why =
        cause instanceof ListingFailed
            ? cause.getMessage()
            : cause == null ? "no answer" : cause.getClass().getSimpleName();
    LOG.log(
        System.Logger.Level.WARNING,
        "tally: could not list the tools of "
            + options.target()
            + " ("
            + why
            + "); tool annotations are learned from clients' tools/list instead");
  }

  private void restore() {
    byte[] doc;
    try {
      doc = options.keeper().load();
    } catch (java.io.IOException | RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "tally: the kept tool catalogue cannot be read (" + e.getClass().getSimpleName() + ")");
      return;
    }
    if (doc == null) {
      return;
    }
    try {
      List<ToolListing.Tool> tools = CatalogueDocument.read(json.strict(), doc, options.target());
      if (tools != null) {
        learner.restore(tools);
      }
    } catch (IllegalArgumentException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "tally: the kept tool catalogue is ignored (" + e.getMessage() + ")");
    }
  }

  private void keep() {
    if (options.keeper() == Keeper.NONE) {
      return;
    }
    options
        .keeper()
        .keep(
            CatalogueDocument.write(
                json.strict(), options.target(), options.clock().instant(), learner.tools()));
  }
}
