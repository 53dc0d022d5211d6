package dev.tally.core.runtime;

import dev.tally.core.actor.ActorConfig;
import java.util.function.Consumer;

/** The startup line that says callers without a configured credential run anonymously. */
final class AnonymousWarning {
  private AnonymousWarning() {}

  /** The warning for {@code config}, or {@code null} when no caller can be anonymous. */
  static String text(ActorConfig config) {
    if (!config.allowsAnonymous()) {
      return null;
    }
    return "WARNING actor: requests without any of "
        + config.sources()
        + " run as the anonymous actor; Tally never shows them a stored result (RESULT_WITHHELD)"
        + " and cannot tell them apart. Add a credential source, or set actor.anonymous: refuse.";
  }

  static void log(ActorConfig config, Consumer<String> log) {
    String t = text(config);
    if (t != null) {
      log.accept(t);
    }
  }
}
