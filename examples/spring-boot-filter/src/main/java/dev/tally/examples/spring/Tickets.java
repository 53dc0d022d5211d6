package dev.tally.examples.spring;

import java.util.concurrent.atomic.AtomicInteger;

/** A stand-in for a ticket system: every call is one side effect, counted. */
public final class Tickets {
  private final AtomicInteger created = new AtomicInteger();

  /** Creates a ticket and returns its id. */
  public String create(String title) {
    return "T-" + created.incrementAndGet() + " (" + title + ")";
  }

  /** How many tickets were created. */
  public int created() {
    return created.get();
  }
}
