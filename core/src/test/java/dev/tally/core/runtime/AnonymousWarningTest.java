package dev.tally.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.actor.ActorConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Startup says when callers can be anonymous (issue 22 case 5), and only then. */
class AnonymousWarningTest {
  @Test
  void warnsWhenAnonymousCallersAreLetThrough() {
    List<String> lines = new ArrayList<>();
    AnonymousWarning.log(ActorConfig.DEFAULT, lines::add);
    assertThat(lines)
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .startsWith("WARNING actor:")
                    .contains("token_hash(Authorization)")
                    .contains("anonymous")
                    .contains("actor.anonymous: refuse"));
  }

  @Test
  void saysNothingWhenNobodyCanBeAnonymous() {
    List<String> lines = new ArrayList<>();
    AnonymousWarning.log(
        ActorConfig.DEFAULT.withAnonymous(ActorConfig.Anonymous.REFUSE), lines::add);
    AnonymousWarning.log(ActorConfig.fixed("batch"), lines::add);
    assertThat(lines).isEmpty();
  }
}
