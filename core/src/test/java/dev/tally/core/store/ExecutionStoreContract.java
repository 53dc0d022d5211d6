package dev.tally.core.store;

import static dev.tally.core.testing.Stages.await;
import static dev.tally.core.testing.Stages.failure;
import static dev.tally.core.testing.Stages.storeCode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.IllegalTransitionException;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.execution.ResultRef;
import dev.tally.core.execution.RpcError;
import dev.tally.core.execution.Transition;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import dev.tally.core.testing.StatePaths;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The behaviour every {@link ExecutionStore} must have. An implementation binds it by extending
 * this class and implementing {@link #createStore}; a durable one also overrides {@link #reopen} to
 * run the durability tests, which are skipped otherwise.
 */
public abstract class ExecutionStoreContract {
  protected static final int RACERS = 64;

  protected MutableClock clock;
  protected ExecutionStore store;

  /**
   * A new, empty store whose notion of time, if it has one, comes from {@code clock}. Its {@link
   * ExecutionStore#maxResultBytes()} must be at least 1 KiB.
   */
  protected abstract ExecutionStore createStore(MutableClock clock) throws Exception;

  /**
   * Closes {@code store} and opens it again over the same data, as after a restart; returns null
   * (the default) when the store keeps nothing across a restart, and then must not close it.
   */
  protected ExecutionStore reopen(ExecutionStore store, MutableClock clock) throws Exception {
    return null;
  }

  @BeforeEach
  void openStore() throws Exception {
    clock = MutableClock.create();
    store = createStore(clock);
  }

  @AfterEach
  void closeStore() {
    if (store != null) {
      store.close();
    }
  }

  // ---- helpers -------------------------------------------------------------------------------

  protected Executions.Builder candidate() {
    clock.advance(Duration.ofMillis(1));
    return Executions.candidate(clock);
  }

  protected Execution claimed(Executions.Builder builder) {
    Execution candidate = builder.build();
    Claim claim = await(store.claim(candidate, clock.instant()));
    assertThat(claim).isInstanceOf(Claim.Won.class);
    return claim.execution();
  }

  protected Execution move(Execution e, ExecutionState to) {
    return await(store.transition(Transition.to(e, to, clock.advance(Duration.ofSeconds(1)))));
  }

  protected Execution walk(Execution e, List<ExecutionState> path) {
    Execution current = e;
    for (ExecutionState s : path) {
      current = move(current, s);
    }
    return current;
  }

  protected Execution reach(ExecutionState target, Executions.Builder builder) {
    return walk(claimed(builder), StatePaths.pathTo(target));
  }

  protected Execution dispatched(Executions.Builder builder, Duration leaseFor) {
    Execution authorized = reach(ExecutionState.AUTHORIZED, builder);
    Instant at = clock.advance(Duration.ofSeconds(1));
    Transition t =
        Transition.to(authorized, ExecutionState.DISPATCHED, at)
            .withLease(new Lease("owner-a", at.plus(leaseFor)));
    return await(store.transition(t));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private Execution found(ExecutionId id) {
    return await(store.find(id)).orElseThrow(() -> new AssertionError("no record " + id));
  }

  // ---- claim ---------------------------------------------------------------------------------

  @Test
  void firstClaimWinsAndSecondSeesTheHolder() {
    String key = Executions.uniqueKey();
    Execution first = claimed(candidate().matchKey(key));
    Execution second = candidate().matchKey(key).build();

    Claim claim = await(store.claim(second, clock.instant()));

    assertThat(claim).isEqualTo(new Claim.Existing(first));
    assertThat(await(store.find(second.id()))).isEmpty();
    assertThat(await(store.findHolder(key, clock.instant()))).contains(first);
    assertThat(found(first.id())).isEqualTo(first);
  }

  @Test
  void claimsOnDifferentKeysBothWin() {
    Execution a = claimed(candidate());
    Execution b = claimed(candidate());
    assertThat(await(store.find(a.id()))).contains(a);
    assertThat(await(store.find(b.id()))).contains(b);
  }

  @Test
  void claimWinsAnewOnceTheHoldRunsOut() {
    String key = Executions.uniqueKey();
    Execution first = claimed(candidate().matchKey(key).holdFor(Duration.ofMinutes(5)));

    clock.advance(Duration.ofMinutes(5));
    assertThat(await(store.findHolder(key, clock.instant()))).isEmpty();
    Execution second = claimed(candidate().matchKey(key));

    assertThat(await(store.findHolder(key, clock.instant()))).contains(second);
    assertThat(found(first.id())).isEqualTo(first);
  }

  @ParameterizedTest
  @EnumSource(names = {"FAILED"})
  void releasingStatesFreeTheKey(ExecutionState released) {
    String key = Executions.uniqueKey();
    reach(released, candidate().matchKey(key));

    assertThat(await(store.findHolder(key, clock.instant()))).isEmpty();
    Execution next = claimed(candidate().matchKey(key));
    assertThat(await(store.findHolder(key, clock.instant()))).contains(next);
  }

  /**
   * A call its person cancelled, or whose confirmation expired, keeps its key (issue 18): the
   * identical retry finds it and gets that decision back, never a fresh request for approval.
   */
  @ParameterizedTest
  @EnumSource(names = {"CANCELLED", "EXPIRED", "REJECTED"})
  void decidedConfirmationsKeepTheKey(ExecutionState decided) {
    String key = Executions.uniqueKey();
    Execution e = reach(decided, candidate().matchKey(key));
    assertThat(await(store.findHolder(key, clock.instant()))).contains(e);
    Claim c = await(store.claim(candidate().matchKey(key).build(), clock.instant()));
    assertThat(c).isNotInstanceOf(Claim.Won.class);
    assertThat(c.execution().id()).isEqualTo(e.id());
  }

  /** {@code e} moved to delivered with its hold shortened to {@code holdFor} from then. */
  protected Execution deliveredHolding(Execution completed, Duration holdFor) {
    Instant at = clock.advance(Duration.ofSeconds(1));
    return await(
        store.transition(
            Transition.to(completed, ExecutionState.DELIVERED, at)
                .withHoldUntil(at.plus(holdFor))));
  }

  @Test
  void deliveredFingerprintMatchHoldsTheKeyOnlyForItsShortenedHold() {
    String key = Executions.uniqueKey();
    Execution completed =
        reach(ExecutionState.COMPLETED, candidate().matchKey(key).kind(MatchKind.FINGERPRINT));
    Execution delivered = deliveredHolding(completed, Duration.ofSeconds(2));

    assertThat(delivered.holdUntil())
        .isEqualTo(delivered.at(ExecutionState.DELIVERED).plusSeconds(2));
    assertThat(await(store.findHolder(key, clock.instant()))).contains(delivered);
    assertThat(await(store.claim(candidate().matchKey(key).build(), clock.instant())))
        .isEqualTo(new Claim.Existing(delivered));

    clock.advance(Duration.ofSeconds(2));
    assertThat(await(store.findHolder(key, clock.instant()))).isEmpty();
    claimed(candidate().matchKey(key).kind(MatchKind.FINGERPRINT));
  }

  @Test
  void deliveredWithAZeroHoldReleasesTheKeyAtOnce() {
    String key = Executions.uniqueKey();
    Execution completed =
        reach(ExecutionState.COMPLETED, candidate().matchKey(key).kind(MatchKind.FINGERPRINT));
    deliveredHolding(completed, Duration.ZERO);

    assertThat(await(store.findHolder(key, clock.instant()))).isEmpty();
    claimed(candidate().matchKey(key).kind(MatchKind.FINGERPRINT));
  }

  @Test
  void aTransitionNeverLengthensTheHold() {
    Execution completed = reach(ExecutionState.COMPLETED, candidate());
    Execution delivered = deliveredHolding(completed, Duration.ofDays(365));

    assertThat(delivered.holdUntil()).isEqualTo(completed.holdUntil());
    assertThat(found(delivered.id()).holdUntil()).isEqualTo(completed.holdUntil());
  }

  @Test
  void deliveredIdempotencyKeyHoldsUntilHoldUntil() {
    String key = Executions.uniqueKey();
    Execution delivered =
        reach(ExecutionState.DELIVERED, candidate().matchKey(key).holdFor(Duration.ofHours(1)));

    Claim retry = await(store.claim(candidate().matchKey(key).build(), clock.instant()));
    assertThat(retry).isEqualTo(new Claim.Existing(delivered));

    clock.set(delivered.holdUntil());
    claimed(candidate().matchKey(key));
  }

  @Test
  void rejectedKeepsHoldingItsKey() {
    String key = Executions.uniqueKey();
    Execution rejected = reach(ExecutionState.REJECTED, candidate().matchKey(key));
    Claim retry = await(store.claim(candidate().matchKey(key).build(), clock.instant()));
    assertThat(retry).isEqualTo(new Claim.Existing(rejected));
  }

  @Test
  void findHolderAndFindAreEmptyForUnknownKeysAndIds() {
    assertThat(await(store.findHolder(Executions.uniqueKey(), clock.instant()))).isEmpty();
    assertThat(await(store.find(ExecutionId.generate(clock)))).isEmpty();
    assertThat(await(store.result(ExecutionId.generate(clock)))).isEmpty();
  }

  @Test
  void concurrentClaimsOnOneKeyHaveExactlyOneWinner() throws Exception {
    String key = Executions.uniqueKey();
    List<Execution> candidates = new ArrayList<>();
    for (int i = 0; i < RACERS; i++) {
      candidates.add(candidate().matchKey(key).build());
    }
    Instant now = clock.instant();

    List<Object> outcomes = race(candidates, c -> await(store.claim(c, now)));

    List<Claim> claims = outcomes.stream().map(Claim.class::cast).toList();
    List<Claim> won = claims.stream().filter(c -> c instanceof Claim.Won).toList();
    assertThat(won).hasSize(1);
    Execution winner = won.get(0).execution();
    assertThat(claims)
        .filteredOn(c -> c instanceof Claim.Existing)
        .hasSize(RACERS - 1)
        .allSatisfy(c -> assertThat(c.execution().id()).isEqualTo(winner.id()));
    assertThat(await(store.findHolder(key, now))).contains(winner);
    for (Execution c : candidates) {
      assertThat(await(store.find(c.id())).isPresent()).isEqualTo(c.id().equals(winner.id()));
    }
  }

  @Test
  void concurrentTransitionsOnOneVersionHaveExactlyOneWinner() throws Exception {
    Execution accepted = claimed(candidate());
    Instant at = clock.advance(Duration.ofSeconds(1));
    List<Transition> racers = new ArrayList<>();
    for (int i = 0; i < RACERS; i++) {
      racers.add(Transition.to(accepted, ExecutionState.AUTHORIZED, at));
    }

    List<Object> outcomes =
        race(
            racers,
            t -> {
              try {
                return await(store.transition(t));
              } catch (StoreException e) {
                return e.code();
              }
            });

    assertThat(outcomes).filteredOn(o -> o instanceof Execution).hasSize(1);
    assertThat(outcomes)
        .filteredOn(o -> !(o instanceof Execution))
        .hasSize(RACERS - 1)
        .containsOnly(StoreException.Code.STALE_VERSION);
    assertThat(found(accepted.id()).version()).isEqualTo(accepted.version() + 1);
  }

  /** Runs {@code action} on one real thread per input, all released at once; results in order. */
  protected static <T> List<Object> race(List<T> inputs, Function<T, Object> action)
      throws InterruptedException {
    CountDownLatch ready = new CountDownLatch(inputs.size());
    CountDownLatch start = new CountDownLatch(1);
    Object[] results = new Object[inputs.size()];
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < inputs.size(); i++) {
      int n = i;
      Thread t =
          new Thread(
              () -> {
                ready.countDown();
                try {
                  start.await();
                  results[n] = action.apply(inputs.get(n));
                } catch (Throwable e) {
                  results[n] = e;
                }
              },
              "racer-" + i);
      threads.add(t);
      t.start();
    }
    assertThat(ready.await(20, TimeUnit.SECONDS)).isTrue();
    start.countDown();
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(20));
      assertThat(t.isAlive()).as("racer %s finished", t.getName()).isFalse();
    }
    for (Object r : results) {
      if (r instanceof Throwable e) {
        throw new AssertionError("a racer failed", e);
      }
    }
    return Arrays.asList(results);
  }

  // ---- transitions ---------------------------------------------------------------------------

  @Test
  void everyLegalTransitionIsStoredWithVersionAndTimeline() {
    for (StatePaths.Edge edge : StatePaths.legalEdges()) {
      List<ExecutionState> path = new ArrayList<>(StatePaths.pathTo(edge.from()));
      path.add(edge.to());
      Execution current = claimed(candidate());
      Instant acceptedAt = current.at(ExecutionState.ACCEPTED);
      for (ExecutionState s : path) {
        Instant at = clock.advance(Duration.ofSeconds(1));
        Execution next = await(store.transition(Transition.to(current, s, at)));
        assertThat(next.state()).as("%s", edge).isEqualTo(s);
        assertThat(next.version()).as("%s", edge).isEqualTo(current.version() + 1);
        assertThat(next.at(s)).as("%s", edge).isEqualTo(at);
        assertThat(next.at(ExecutionState.ACCEPTED)).isEqualTo(acceptedAt);
        assertThat(found(next.id())).as("%s", edge).isEqualTo(next);
        current = next;
      }
      assertThat(current.timeline().keySet()).containsAll(path);
    }
  }

  @Test
  void illegalTransitionsFailAndLeaveTheRecordUnchanged() {
    for (ExecutionState from : ExecutionState.values()) {
      Execution e = reach(from, candidate());
      for (ExecutionState to : ExecutionState.values()) {
        if (from.canTransitionTo(to)) {
          continue;
        }
        Throwable t = failure(store.transition(Transition.to(e, to, clock.instant())));
        assertThat(t).as("%s -> %s", from, to).isInstanceOf(IllegalTransitionException.class);
      }
      assertThat(found(e.id())).isEqualTo(e);
    }
  }

  @Test
  void transitionOnAnOldVersionIsStale() {
    Execution accepted = claimed(candidate());
    Execution authorized = move(accepted, ExecutionState.AUTHORIZED);

    Transition stale = Transition.to(accepted, ExecutionState.DISPATCHED, clock.instant());
    assertThat(storeCode(store.transition(stale))).isEqualTo(StoreException.Code.STALE_VERSION);
    assertThat(found(accepted.id())).isEqualTo(authorized);
  }

  @Test
  void transitionOfAnUnknownIdIsNotFound() {
    Execution ghost = candidate().build();
    Transition t = Transition.to(ghost, ExecutionState.AUTHORIZED, clock.instant());
    assertThat(storeCode(store.transition(t))).isEqualTo(StoreException.Code.NOT_FOUND);
  }

  @Test
  void transitionStoresItsDetails() {
    Execution dispatched = dispatched(candidate(), Duration.ofSeconds(30));
    Instant at = clock.advance(Duration.ofSeconds(1));
    Transition t =
        Transition.to(dispatched, ExecutionState.OUTCOME_UNKNOWN, at)
            .withOutcome(502, new RpcError(-32603, "upstream went away"))
            .withRetainUntil(at.plus(Duration.ofDays(7)))
            .clearingLease()
            .awaitingInput(true);

    Execution stored = await(store.transition(t));

    assertThat(stored).isEqualTo(dispatched.apply(t));
    assertThat(stored.lease()).isNull();
    assertThat(stored.targetStatus()).isEqualTo(502);
    assertThat(stored.error()).isEqualTo(new RpcError(-32603, "upstream went away"));
    assertThat(stored.retainUntil()).isEqualTo(at.plus(Duration.ofDays(7)));
    assertThat(stored.awaitingInput()).isTrue();
    assertThat(found(stored.id())).isEqualTo(stored);
  }

  @Test
  void resultBytesAreStoredAndReadBack() {
    Execution dispatched = dispatched(candidate(), Duration.ofSeconds(30));
    byte[] result = bytes("{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"isError\":true}");
    assertThat(await(store.result(dispatched.id()))).isEmpty();

    Execution completed =
        await(
            store.transition(
                Transition.to(dispatched, ExecutionState.COMPLETED, clock.instant())
                    .withResult(result, true)));

    assertThat(completed.result()).isEqualTo(new ResultRef(result.length, true, true));
    assertThat(await(store.result(completed.id())))
        .hasValueSatisfying(b -> assertThat(b).isEqualTo(result));
    Execution delivered = move(completed, ExecutionState.DELIVERED);
    assertThat(delivered.result()).isEqualTo(completed.result());
    assertThat(await(store.result(completed.id())))
        .hasValueSatisfying(b -> assertThat(b).isEqualTo(result));
  }

  @Test
  void resultAtTheCapIsKeptAndAboveItOnlyItsSize() {
    int cap = store.maxResultBytes();
    Execution atCap = dispatched(candidate(), Duration.ofSeconds(30));
    Execution overCap = dispatched(candidate(), Duration.ofSeconds(30));
    byte[] fits = new byte[cap];
    Arrays.fill(fits, (byte) 'a');
    byte[] tooBig = new byte[cap + 1];
    Arrays.fill(tooBig, (byte) 'b');

    Execution kept =
        await(
            store.transition(
                Transition.to(atCap, ExecutionState.COMPLETED, clock.instant())
                    .withResult(fits, false)));
    Execution dropped =
        await(
            store.transition(
                Transition.to(overCap, ExecutionState.COMPLETED, clock.instant())
                    .withResult(tooBig, true)));

    assertThat(kept.result()).isEqualTo(new ResultRef(cap, true, false));
    assertThat(await(store.result(kept.id())))
        .hasValueSatisfying(b -> assertThat(b).isEqualTo(fits));
    assertThat(dropped.result()).isEqualTo(new ResultRef(cap + 1, false, true));
    assertThat(found(dropped.id()).result()).isEqualTo(new ResultRef(cap + 1, false, true));
    assertThat(await(store.result(dropped.id()))).isEmpty();
  }

  // ---- leases --------------------------------------------------------------------------------

  @Test
  void touchReplacesLeaseAndAwaitingInputWithoutAStateChange() {
    Execution dispatched = dispatched(candidate(), Duration.ofSeconds(30));
    Lease renewed = new Lease("owner-b", clock.instant().plus(Duration.ofMinutes(2)));

    Execution touched = await(store.touch(dispatched.id(), dispatched.version(), renewed, true));

    assertThat(touched.version()).isEqualTo(dispatched.version() + 1);
    assertThat(touched.state()).isEqualTo(ExecutionState.DISPATCHED);
    assertThat(touched.lease()).isEqualTo(renewed);
    assertThat(touched.awaitingInput()).isTrue();
    assertThat(touched.timeline()).isEqualTo(dispatched.timeline());
    assertThat(found(dispatched.id())).isEqualTo(touched);

    Execution cleared = await(store.touch(touched.id(), touched.version(), null, false));
    assertThat(cleared.lease()).isNull();
    assertThat(cleared.awaitingInput()).isFalse();
  }

  @Test
  void touchIsCompareAndSet() {
    Execution dispatched = dispatched(candidate(), Duration.ofSeconds(30));
    Lease lease = new Lease("owner-b", clock.instant().plus(Duration.ofMinutes(2)));
    await(store.touch(dispatched.id(), dispatched.version(), lease, false));

    assertThat(storeCode(store.touch(dispatched.id(), dispatched.version(), lease, false)))
        .isEqualTo(StoreException.Code.STALE_VERSION);
    assertThat(storeCode(store.touch(ExecutionId.generate(clock), 1, lease, false)))
        .isEqualTo(StoreException.Code.NOT_FOUND);
  }

  @Test
  void heartbeatKeepsADispatchedExecutionOffTheLapsedList() {
    Execution dispatched = dispatched(candidate(), Duration.ofSeconds(30));
    clock.advance(Duration.ofSeconds(20));
    Lease extended = new Lease("owner-a", clock.instant().plus(Duration.ofSeconds(30)));
    await(store.touch(dispatched.id(), dispatched.version(), extended, false));

    clock.advance(Duration.ofSeconds(20));
    assertThat(await(store.lapsed(clock.instant(), 100))).isEmpty();

    clock.advance(Duration.ofSeconds(11));
    assertThat(await(store.lapsed(clock.instant(), 100)))
        .extracting(Execution::id)
        .containsExactly(dispatched.id());
  }

  /**
   * The operator's gauge (issue 19): every store exports {@code tally.outcome_unknown.current}, the
   * executions in {@code outcome_unknown} now. A store may read it lazily (a database counts on
   * scrape), so the test reads it until it shows the state, never sleeping a fixed time.
   */
  @Test
  void theOutcomeUnknownGaugeCountsTheExecutionsInThatStateNow() {
    LongSupplier gauge = gauge("tally.outcome_unknown.current");
    Execution first =
        move(dispatched(candidate(), Duration.ofSeconds(10)), ExecutionState.OUTCOME_UNKNOWN);
    move(dispatched(candidate(), Duration.ofSeconds(10)), ExecutionState.OUTCOME_UNKNOWN);
    dispatched(candidate(), Duration.ofSeconds(10));
    move(dispatched(candidate(), Duration.ofSeconds(10)), ExecutionState.COMPLETED);
    readsEventually(gauge, 2);

    move(first, ExecutionState.COMPLETED); // resolved by a status check or an operator
    readsEventually(gauge, 1);
  }

  /** The gauge {@code name} the store registers on a {@link dev.tally.core.observe.Meter}. */
  private LongSupplier gauge(String name) {
    Map<String, LongSupplier> gauges = new ConcurrentHashMap<>();
    store.metrics(
        new dev.tally.core.observe.Meter() {
          @Override
          public void decision(String decision, String tool) {}

          @Override
          public void state(String state, String tool) {}

          @Override
          public void attachWait(long nanos) {}

          @Override
          public void storeOperation(String operation, long nanos, boolean failed) {}

          @Override
          public void gauge(String n, String description, String unit, LongSupplier value) {
            gauges.put(n, value);
          }

          @Override
          public void counter(String n, String description, String unit, LongSupplier value) {}
        });
    assertThat(gauges).as("gauges of " + store).containsKey(name);
    return gauges.get(name);
  }

  private static void readsEventually(LongSupplier gauge, long expected) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    long last;
    while ((last = gauge.getAsLong()) != expected && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
    assertThat(last).isEqualTo(expected);
  }

  @Test
  void lapsedListsOnlyDispatchedWithExpiredLeasesOldestFirst() {
    Execution oldest = dispatched(candidate(), Duration.ofSeconds(10));
    dispatched(candidate(), Duration.ofMinutes(10));
    Execution newer = dispatched(candidate(), Duration.ofSeconds(10));
    move(dispatched(candidate(), Duration.ofSeconds(10)), ExecutionState.OUTCOME_UNKNOWN);
    Execution accepted = claimed(candidate());
    await(
        store.touch(
            accepted.id(),
            accepted.version(),
            new Lease("owner-a", clock.instant().plus(Duration.ofSeconds(1))),
            false));
    move(dispatched(candidate(), Duration.ofSeconds(10)), ExecutionState.COMPLETED);

    clock.advance(Duration.ofMinutes(1));
    List<Execution> lapsed = await(store.lapsed(clock.instant(), 100));

    assertThat(lapsed).extracting(Execution::id).containsExactly(oldest.id(), newer.id());
    assertThat(await(store.lapsed(clock.instant(), 1)))
        .extracting(Execution::id)
        .containsExactly(oldest.id());
  }

  @Test
  void lapsedIsOldestFirstAndCutAtTheLimitAmongMany() {
    List<ExecutionId> ids = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      ids.add(dispatched(candidate(), Duration.ofSeconds(10)).id());
      clock.advance(Duration.ofMillis(1 + i % 3));
    }
    ids.sort(null);
    clock.advance(Duration.ofMinutes(1));

    assertThat(await(store.lapsed(clock.instant(), 100)))
        .extracting(Execution::id)
        .containsExactlyElementsOf(ids);
    assertThat(await(store.lapsed(clock.instant(), 7)))
        .extracting(Execution::id)
        .containsExactlyElementsOf(ids.subList(0, 7));
  }

  // ---- awaitChange ---------------------------------------------------------------------------

  @Test
  void awaitChangeCompletesWhenAnotherThreadTransitions() throws Exception {
    Execution accepted = claimed(candidate());
    CompletableFuture<Optional<Execution>> change =
        store
            .awaitChange(accepted.id(), accepted.version(), Duration.ofMinutes(1))
            .toCompletableFuture();
    assertThat(change).isNotDone();

    Thread writer = new Thread(() -> move(accepted, ExecutionState.AUTHORIZED), "writer");
    writer.start();

    Optional<Execution> seen = change.get(20, TimeUnit.SECONDS);
    writer.join();
    assertThat(seen).hasValueSatisfying(e -> assertThat(e.version()).isGreaterThan(1));
    assertThat(seen.get().state()).isEqualTo(ExecutionState.AUTHORIZED);
  }

  @Test
  void awaitChangeCompletesOnATouch() throws Exception {
    Execution dispatched = dispatched(candidate(), Duration.ofSeconds(30));
    CompletableFuture<Optional<Execution>> change =
        store
            .awaitChange(dispatched.id(), dispatched.version(), Duration.ofMinutes(1))
            .toCompletableFuture();
    Lease lease = new Lease("owner-a", clock.instant().plus(Duration.ofMinutes(1)));
    Execution touched = await(store.touch(dispatched.id(), dispatched.version(), lease, true));

    assertThat(change.get(20, TimeUnit.SECONDS)).contains(touched);
  }

  @Test
  void awaitChangeAnswersAtOnceWhenTheRecordIsAlreadyNewer() {
    Execution authorized = move(claimed(candidate()), ExecutionState.AUTHORIZED);
    assertThat(await(store.awaitChange(authorized.id(), 1, Duration.ofMinutes(1))))
        .contains(authorized);
  }

  @Test
  void awaitChangeReturnsTheCurrentRecordAfterTheTimeout() {
    Execution accepted = claimed(candidate());
    assertThat(await(store.awaitChange(accepted.id(), accepted.version(), Duration.ofMillis(50))))
        .contains(accepted);
  }

  @Test
  void awaitChangeOnAnUnknownIdIsEmpty() {
    assertThat(await(store.awaitChange(ExecutionId.generate(clock), 0, Duration.ofSeconds(5))))
        .isEmpty();
  }

  // ---- list ----------------------------------------------------------------------------------

  @Test
  void listFiltersAndPagesNewestFirst() {
    Execution r1 = claimed(candidate().tool("tool_a").actor("actor:x"));
    Execution r2 = reach(ExecutionState.FAILED, candidate().tool("tool_b").actor("actor:x"));
    Execution r3 = reach(ExecutionState.AUTHORIZED, candidate().tool("tool_a").actor("actor:y"));
    Execution r4 = reach(ExecutionState.AUTHORIZED, candidate().tool("tool_a").actor("actor:x"));
    Execution r5 = claimed(candidate().tool("tool_b").actor("actor:y"));

    assertThat(ids(query(null, null, null, null, 100))).containsExactly(idsOf(r5, r4, r3, r2, r1));
    assertThat(ids(query(ExecutionState.AUTHORIZED, null, null, null, 100)))
        .containsExactly(idsOf(r4, r3));
    assertThat(ids(query(null, "tool_a", null, null, 100))).containsExactly(idsOf(r4, r3, r1));
    assertThat(ids(query(null, null, "actor:x", null, 100))).containsExactly(idsOf(r4, r2, r1));
    assertThat(ids(query(ExecutionState.AUTHORIZED, "tool_a", "actor:x", null, 100)))
        .containsExactly(idsOf(r4));
    assertThat(ids(query(ExecutionState.DISPATCHED, null, null, null, 100))).isEmpty();
    assertThat(query(null, null, null, null, 100).items().get(1)).isEqualTo(found(r4.id()));

    Page first = query(null, null, null, null, 2);
    assertThat(ids(first)).containsExactly(idsOf(r5, r4));
    assertThat(first.next()).isNotNull();
    Page second = query(null, null, null, first.next(), 2);
    assertThat(ids(second)).containsExactly(idsOf(r3, r2));
    Page last = query(null, null, null, second.next(), 2);
    assertThat(ids(last)).containsExactly(idsOf(r1));
    assertThat(last.next()).isNull();

    Page exactlyFull = query(null, null, null, r2.id().value(), 1);
    assertThat(ids(exactlyFull)).containsExactly(idsOf(r1));
    assertThat(exactlyFull.next()).isNull();
    Page filteredPage = query(null, "tool_a", null, null, 1);
    assertThat(ids(filteredPage)).containsExactly(idsOf(r4));
    assertThat(ids(query(null, "tool_a", null, filteredPage.next(), 5)))
        .containsExactly(idsOf(r3, r1));
  }

  @Test
  void listByAStateFewRecordsAreInPagesNewestFirstAndForgetsRecordsThatLeftIt() {
    for (ExecutionState state :
        List.of(ExecutionState.PENDING_CONFIRMATION, ExecutionState.OUTCOME_UNKNOWN)) {
      Execution a = reach(state, candidate().tool("few_a"));
      claimed(candidate().tool("few_a")); // accepted: not listed
      Execution b = reach(state, candidate().tool("few_a"));
      Execution c = reach(state, candidate().tool("few_b"));
      Execution left = reach(state, candidate().tool("few_a"));
      left =
          move(
              left,
              state == ExecutionState.OUTCOME_UNKNOWN
                  ? ExecutionState.FAILED
                  : ExecutionState.CANCELLED);

      assertThat(ids(query(state, null, null, null, 100)))
          .as(state.wireName())
          .startsWith(idsOf(c, b, a))
          .doesNotContain(left.id());
      Page first = query(state, null, null, null, 1);
      assertThat(ids(first)).containsExactly(idsOf(c));
      assertThat(ids(query(state, null, null, first.next(), 1))).containsExactly(idsOf(b));
      assertThat(ids(query(state, "few_a", null, c.id().value(), 100)))
          .containsExactly(idsOf(b, a));
    }
  }

  private Page query(ExecutionState state, String tool, String actor, String before, int limit) {
    return await(store.list(new ExecutionQuery(state, tool, actor, before, limit)));
  }

  private static List<ExecutionId> ids(Page page) {
    return page.items().stream().map(Execution::id).toList();
  }

  private static ExecutionId[] idsOf(Execution... es) {
    return Arrays.stream(es).map(Execution::id).toArray(ExecutionId[]::new);
  }

  // ---- purge ---------------------------------------------------------------------------------

  @Test
  void purgeRemovesOnlyRecordsPastRetentionThatNoLongerHold() {
    Execution failed = reach(ExecutionState.FAILED, candidate().retainFor(Duration.ofHours(1)));
    Execution fpDispatched =
        dispatched(
            candidate().kind(MatchKind.FINGERPRINT).retainFor(Duration.ofHours(1)),
            Duration.ofSeconds(30));
    Execution completed =
        await(
            store.transition(
                Transition.to(fpDispatched, ExecutionState.COMPLETED, clock.instant())
                    .withResult(bytes("{\"content\":[]}"), false)));
    Execution delivered = move(completed, ExecutionState.DELIVERED);
    Execution stillHolding =
        reach(
            ExecutionState.DELIVERED,
            candidate().holdFor(Duration.ofHours(3)).retainFor(Duration.ofHours(1)));
    Execution retained = reach(ExecutionState.FAILED, candidate().retainFor(Duration.ofHours(5)));

    clock.advance(Duration.ofHours(2));
    int purged = await(store.purge(clock.instant(), 100));

    assertThat(purged).isEqualTo(2);
    assertThat(await(store.find(failed.id()))).isEmpty();
    assertThat(await(store.find(delivered.id()))).isEmpty();
    assertThat(await(store.result(delivered.id()))).isEmpty();
    assertThat(await(store.find(stillHolding.id()))).isPresent();
    assertThat(await(store.findHolder(stillHolding.matchKey(), clock.instant())))
        .contains(found(stillHolding.id()));
    assertThat(await(store.find(retained.id()))).isPresent();
    assertThat(ids(query(null, null, null, null, 100)))
        .containsExactly(idsOf(retained, stillHolding));
    assertThat(await(store.purge(clock.instant(), 100))).isZero();
  }

  @Test
  void purgeRespectsItsLimitAndFreesExpiredHolds() {
    List<Execution> old = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      old.add(
          reach(
              ExecutionState.DELIVERED,
              candidate().holdFor(Duration.ofHours(1)).retainFor(Duration.ofHours(1))));
    }
    clock.advance(Duration.ofHours(2));

    assertThat(await(store.purge(clock.instant(), 2))).isEqualTo(2);
    assertThat(await(store.purge(clock.instant(), 2))).isEqualTo(1);
    assertThat(await(store.purge(clock.instant(), 2))).isZero();
    for (Execution e : old) {
      assertThat(await(store.find(e.id()))).isEmpty();
      claimed(candidate().matchKey(e.matchKey()));
    }
  }

  // ---- closing -------------------------------------------------------------------------------

  @Test
  void everyOperationFailsWithClosedAfterClose() {
    Execution e = claimed(candidate());
    store.close();
    Instant now = clock.instant();
    Lease lease = new Lease("owner-a", now.plusSeconds(30));

    assertThat(storeCode(store.claim(candidate().build(), now)))
        .isEqualTo(StoreException.Code.CLOSED);
    assertThat(storeCode(store.find(e.id()))).isEqualTo(StoreException.Code.CLOSED);
    assertThat(storeCode(store.findHolder(e.matchKey(), now)))
        .isEqualTo(StoreException.Code.CLOSED);
    assertThat(storeCode(store.transition(Transition.to(e, ExecutionState.AUTHORIZED, now))))
        .isEqualTo(StoreException.Code.CLOSED);
    assertThat(storeCode(store.touch(e.id(), e.version(), lease, false)))
        .isEqualTo(StoreException.Code.CLOSED);
    assertThat(storeCode(store.result(e.id()))).isEqualTo(StoreException.Code.CLOSED);
    assertThat(storeCode(store.awaitChange(e.id(), e.version(), Duration.ofSeconds(1))))
        .isEqualTo(StoreException.Code.CLOSED);
    assertThat(storeCode(store.lapsed(now, 10))).isEqualTo(StoreException.Code.CLOSED);
    assertThat(storeCode(store.list(new ExecutionQuery(null, null, null, null, 10))))
        .isEqualTo(StoreException.Code.CLOSED);
    assertThat(storeCode(store.purge(now, 10))).isEqualTo(StoreException.Code.CLOSED);
    assertThat(store.isWritable()).isFalse();
    store.close();
  }

  @Test
  void closeEndsPendingWaits() throws Exception {
    Execution e = claimed(candidate());
    CompletableFuture<Optional<Execution>> change =
        store.awaitChange(e.id(), e.version(), Duration.ofMinutes(5)).toCompletableFuture();

    store.close();

    try {
      change.get(20, TimeUnit.SECONDS);
    } catch (ExecutionException expected) {
      // Failing with CLOSED is as good as answering with the current record.
    } catch (TimeoutException hung) {
      throw new AssertionError("a wait outlived the store", hung);
    }
  }

  // ---- durability (stores that override reopen) ----------------------------------------------

  private void reopenOrSkip() throws Exception {
    ExecutionStore again = reopen(store, clock);
    assumeTrue(again != null, "the store keeps nothing across a restart");
    store = again;
  }

  @Test
  void reopenedStoreKeepsRecordsResultsAndHolders() throws Exception {
    byte[] result = bytes("{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}");
    Execution dispatched = dispatched(candidate(), Duration.ofSeconds(30));
    Execution completed =
        await(
            store.transition(
                Transition.to(dispatched, ExecutionState.COMPLETED, clock.instant())
                    .withResult(result, false)
                    .clearingLease()));
    Execution lapsing = dispatched(candidate(), Duration.ofSeconds(5));
    Execution touched =
        await(
            store.touch(
                lapsing.id(),
                lapsing.version(),
                new Lease("owner-b", clock.instant().plusSeconds(5)),
                true));
    Execution released = reach(ExecutionState.FAILED, candidate());
    Execution fpDelivered =
        deliveredHolding(
            reach(ExecutionState.COMPLETED, candidate().kind(MatchKind.FINGERPRINT)),
            Duration.ZERO);

    reopenOrSkip();

    assertThat(found(completed.id())).isEqualTo(completed);
    assertThat(await(store.result(completed.id())))
        .hasValueSatisfying(b -> assertThat(b).isEqualTo(result));
    assertThat(found(touched.id())).isEqualTo(touched);
    assertThat(found(released.id())).isEqualTo(released);
    assertThat(found(fpDelivered.id())).isEqualTo(fpDelivered);
    Instant now = clock.instant();
    assertThat(await(store.findHolder(completed.matchKey(), now))).contains(completed);
    assertThat(await(store.claim(candidate().matchKey(completed.matchKey()).build(), now)))
        .isEqualTo(new Claim.Existing(completed));
    assertThat(await(store.findHolder(released.matchKey(), now))).isEmpty();
    assertThat(await(store.findHolder(fpDelivered.matchKey(), now))).isEmpty();
    claimed(candidate().matchKey(released.matchKey()));
    clock.advance(Duration.ofSeconds(10));
    assertThat(await(store.lapsed(clock.instant(), 10)))
        .extracting(Execution::id)
        .containsExactly(touched.id());
    assertThat(move(found(touched.id()), ExecutionState.OUTCOME_UNKNOWN).version())
        .isEqualTo(touched.version() + 1);
  }

  @Test
  void reopenedStoreForgetsPurgedRecords() throws Exception {
    Execution failed = reach(ExecutionState.FAILED, candidate().retainFor(Duration.ofHours(1)));
    Execution kept = claimed(candidate());
    clock.advance(Duration.ofHours(2));
    assertThat(await(store.purge(clock.instant(), 10))).isEqualTo(1);

    reopenOrSkip();

    assertThat(await(store.find(failed.id()))).isEmpty();
    assertThat(found(kept.id())).isEqualTo(kept);
  }
}
