package dev.tally.core.config;

import java.util.List;
import java.util.Objects;

/**
 * The configuration is invalid. Carries every problem found, not just the first; each names the key
 * path, the offending value (or {@code <redacted>} when it might be a secret) and what was
 * expected. Never wraps a parser stack trace.
 */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final List<String> problems;

  /**
   * @param source what was being read ({@code config file /etc/tally.yaml}, {@code configuration})
   * @param problems one line per problem; at least one
   */
  public ConfigException(String source, List<String> problems) {
    super(render(source, problems), null, false, false);
    this.source = Objects.requireNonNull(source, "source");
    this.problems = List.copyOf(problems);
    if (this.problems.isEmpty()) {
      throw new IllegalArgumentException("problems: empty (expected at least one)");
    }
  }

  /** What was being read when the problems were found. */
  public String source() {
    return source;
  }

  /** Every problem, one line each, in the order found. */
  public List<String> problems() {
    return problems;
  }

  private static String render(String source, List<String> problems) {
    StringBuilder sb = new StringBuilder("invalid ").append(source).append(": ");
    if (problems.size() == 1) {
      return sb.append(problems.get(0)).toString();
    }
    sb.append(problems.size()).append(" problems");
    for (String p : problems) {
      sb.append("\n  - ").append(p);
    }
    return sb.toString();
  }
}
