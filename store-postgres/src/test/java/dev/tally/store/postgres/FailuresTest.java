package dev.tally.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.IllegalTransitionException;
import dev.tally.core.store.StoreException;
import io.vertx.pgclient.PgException;
import java.io.IOException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

class FailuresTest {
  private static final String SECRET = "hunter2-secret";
  private final Failures failures =
      new Failures(PostgresTarget.of("db.example", 5432, "tally", "app", SECRET));

  private StoreException map(Throwable t) {
    RuntimeException e = failures.map(t);
    assertThat(e).isInstanceOf(StoreException.class);
    return (StoreException) e;
  }

  @Test
  void connectionTroubleIsUnavailableAndSaysToRetry() {
    StoreException e = map(new ConnectException("Connection refused: db.example/10.0.0.1:5432"));
    assertThat(e.code()).isEqualTo(StoreException.Code.UNAVAILABLE);
    assertThat(e.code().retryable()).isTrue();
    assertThat(e.getMessage())
        .contains("postgres://app:<redacted>@db.example:5432/tally is unavailable")
        .contains("ConnectException")
        .contains("did not complete, retry later");
    assertThat(Failures.isOutage(e)).isTrue();
  }

  @Test
  void serverStatesThatPassAreUnavailable() {
    for (String state : new String[] {"57P01", "57P03", "08006", "53300", "40001", "40P01"}) {
      StoreException e = map(new PgException("going away", "FATAL", state, null));
      assertThat(e.code()).as(state).isEqualTo(StoreException.Code.UNAVAILABLE);
      assertThat(e.getMessage()).contains("SQLSTATE " + state);
    }
  }

  @Test
  void authenticationFailureIsUnavailableAndNamesTheFix() {
    StoreException e =
        map(
            new PgException(
                "password authentication failed for user \"app\"", "FATAL", "28P01", null));
    assertThat(e.code()).isEqualTo(StoreException.Code.UNAVAILABLE);
    assertThat(e.getMessage()).contains("authentication failed").contains("password");
  }

  @Test
  void otherRefusalsAreCorrupt() {
    StoreException missing =
        map(new PgException("relation does not exist", "ERROR", "42P01", null));
    assertThat(missing.code()).isEqualTo(StoreException.Code.CORRUPT);
    assertThat(missing.getMessage()).contains("SQLSTATE 42P01").contains("relation does not exist");
    StoreException duplicate = map(new PgException("duplicate key", "ERROR", "23505", null));
    assertThat(duplicate.code()).isEqualTo(StoreException.Code.CORRUPT);
    assertThat(duplicate.getMessage()).contains("already exists");
    assertThat(map(new IllegalArgumentException("state: unknown")).code())
        .isEqualTo(StoreException.Code.CORRUPT);
  }

  @Test
  void storeAndTransitionErrorsPassThrough() {
    StoreException stale = new StoreException(StoreException.Code.STALE_VERSION, "stale");
    assertThat(failures.map(stale)).isSameAs(stale);
    IllegalTransitionException illegal =
        new IllegalTransitionException(ExecutionState.ACCEPTED, ExecutionState.DELIVERED);
    assertThat(failures.map(illegal)).isSameAs(illegal);
  }

  @Test
  void aPasswordInACauseIsCutFromTheMessageAndTheCauseIsNotAttached() {
    IOException leaky = new IOException("cannot connect with password " + SECRET);
    StoreException e = map(leaky);
    assertThat(e.getMessage()).doesNotContain(SECRET).contains("<redacted>");
    assertThat(e.getCause()).isNull();

    PgException pg = new PgException("bad value " + SECRET, "ERROR", "22P02", null);
    StoreException refused = map(pg);
    assertThat(refused.getMessage()).doesNotContain(SECRET);
    assertThat(refused.getCause()).isNull();

    IOException clean = new IOException("connection reset");
    assertThat(map(clean).getCause()).isSameAs(clean);
  }
}
