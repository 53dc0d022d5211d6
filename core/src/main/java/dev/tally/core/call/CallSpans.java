package dev.tally.core.call;

import dev.tally.core.execution.Execution;
import dev.tally.core.gate.Decision;
import dev.tally.core.observe.Meter;
import dev.tally.core.observe.RequestSpan;

/**
 * What a {@link Decision} tells the request's span and the meter: {@code tally.decision}, the
 * execution's id and state, and the {@code error.type} of the answers that are errors. The one
 * place both adapters' spans get these from.
 */
final class CallSpans {
  private CallSpans() {}

  /** The value of {@code tally.decision} for {@code d}. */
  static String name(Decision d) {
    if (d instanceof Decision.PassThrough) {
      return "pass_through";
    }
    if (d instanceof Decision.Dispatch) {
      return "dispatch";
    }
    if (d instanceof Decision.Replay) {
      return "replay";
    }
    if (d instanceof Decision.Attach) {
      return "attach";
    }
    if (d instanceof Decision.Respond) {
      return "respond";
    }
    return "refuse";
  }

  /** Records {@code d} on {@code tool}'s call: the span's attributes and the decision counter. */
  static void decided(RequestSpan span, Meter meter, String tool, Decision d) {
    String name = name(d);
    span.decision(name);
    meter.decision(name, tool);
    Execution e = execution(d);
    if (e != null) {
      span.execution(e.id().value(), e.state().wireName());
    }
    String error = errorType(d);
    if (error != null) {
      span.error(error);
    }
  }

  /** The {@code error.type} of the answer {@code d} makes, or null when it is no error. */
  static String errorType(Decision d) {
    if (d instanceof Decision.Respond r) {
      return r.code().name();
    }
    if (d instanceof Decision.Refuse r) {
      return r.error().code().name();
    }
    return null;
  }

  private static Execution execution(Decision d) {
    if (d instanceof Decision.Dispatch x) {
      return x.inFlight().execution();
    }
    if (d instanceof Decision.Replay x) {
      return x.execution();
    }
    if (d instanceof Decision.Attach x) {
      return x.execution();
    }
    if (d instanceof Decision.Respond x) {
      return x.execution();
    }
    return null;
  }
}
