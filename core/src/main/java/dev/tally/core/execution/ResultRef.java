package dev.tally.core.execution;

/**
 * What is known about a stored result without loading it.
 *
 * @param bytes size of the JSON-RPC {@code result} object in bytes
 * @param retained the bytes were kept (false when over the store's size cap)
 * @param isError the result was a tool error ({@code isError: true})
 */
public record ResultRef(int bytes, boolean retained, boolean isError) {}
