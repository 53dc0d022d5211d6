/**
 * Tamper-evident audit journals (ARCHITECTURE.md §9; format in {@code docs/audit.md}).
 *
 * <p>Writers report through {@link dev.tally.core.audit.AuditSink}; {@link
 * dev.tally.core.audit.AuditJournals} appends hash-chained entries with Ed25519-signed checkpoints;
 * {@link dev.tally.core.audit.AuditVerifier} checks a directory offline and {@link
 * dev.tally.core.audit.AuditTimeline} renders it for a person.
 */
package dev.tally.core.audit;
