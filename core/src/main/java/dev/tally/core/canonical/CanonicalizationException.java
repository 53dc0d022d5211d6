package dev.tally.core.canonical;

/**
 * Input that RFC 8785 canonicalization refuses. {@link #pointer()} is the RFC 6901 JSON pointer of
 * the offending value ({@code ""} for the root). Messages never contain string values from the
 * input (they may be secrets); they name the pointer and the rule. Carries no stack trace: it is an
 * expected rejection on the hot path.
 */
public final class CanonicalizationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why the input was refused. */
  public enum Code {
    MALFORMED,
    DUPLICATE_KEY,
    LONE_SURROGATE,
    NON_FINITE_NUMBER,
    NUMBER_OUT_OF_RANGE,
    TOO_DEEP,
    TOO_LARGE
  }

  private final Code code;
  private final String pointer;

  public CanonicalizationException(Code code, String pointer, String message) {
    super(message + " at " + (pointer.isEmpty() ? "/ (root)" : pointer), null, false, false);
    this.code = code;
    this.pointer = pointer;
  }

  public Code code() {
    return code;
  }

  public String pointer() {
    return pointer;
  }
}
