package dev.tally.core.canonical;

/** Finds UTF-16 surrogates without a partner, which have no UTF-8 encoding (RFC 8785 §3.2.2.2). */
final class Surrogates {
  private Surrogates() {}

  /** The index of the first lone surrogate in {@code s}, or -1. */
  static int lone(String s) {
    for (int i = 0, n = s.length(); i < n; i++) {
      char c = s.charAt(i);
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c)
            && i + 1 < n
            && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          return i;
        }
      }
    }
    return -1;
  }
}
