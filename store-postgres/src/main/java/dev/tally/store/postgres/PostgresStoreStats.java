package dev.tally.store.postgres;

/**
 * Counters of a {@link PostgresExecutionStore} since it opened.
 *
 * @param roundTrips statements sent for store operations; each is one round trip to the server
 *     (claims, transitions and touches take one each when the record is in the store's cache)
 * @param notifyStatements statements that notified other replicas of committed changes, sent off
 *     the operations' path (each carries every change that queued while the previous one ran); one
 *     round trip each, not counted in {@code roundTrips}
 * @param outages operations that failed because the database was unavailable
 * @param notifications change notifications received from the database
 * @param polls polls made for waiting callers while notifications were off or down
 * @param waiting callers of {@code awaitChange} waiting now (their first read found no change)
 * @param listening whether the store currently receives change notifications
 * @param writable what {@link PostgresExecutionStore#isWritable()} says now
 */
public record PostgresStoreStats(
    long roundTrips,
    long notifyStatements,
    long outages,
    long notifications,
    long polls,
    int waiting,
    boolean listening,
    boolean writable) {}
