package dev.tally.core.audit;

import static dev.tally.core.audit.Fixtures.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.contract.ToolClass;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.execution.RpcError;
import dev.tally.core.execution.Transition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Values that may be secret reach no journal file, message or rendering. */
class AuditNoSecretTest {
  static final String SECRET = "sk-live-SECRET-MARKER-7f3a";

  @TempDir Path dir;

  @Test
  void aSecretInEveryNonWhitelistedPlaceNeverReachesAFile() throws Exception {
    MutableClock clock = new MutableClock(T0);
    SessionRef session = SessionRef.mcpSession("mcp-" + SECRET);
    Execution created =
        new Execution(
            ExecutionId.generate(InstantSource.fixed(T0)),
            1,
            "key:alice:pay:" + SECRET,
            MatchKind.IDEMPOTENCY_KEY,
            "alice",
            "pay",
            ToolClass.KEYED,
            "hmac-sha256:k1:0123abcd",
            Execution.WINDOW_SCOPE,
            ExecutionState.ACCEPTED,
            Map.of(ExecutionState.ACCEPTED, T0),
            T0.plusSeconds(600),
            T0.plusSeconds(6000),
            null,
            null,
            null,
            null,
            false,
            "{card:string(redacted),amount:number}");
    try (AuditJournals j = AuditJournals.open(dir, Fixtures.options(clock))) {
      j.session(new SessionSeen(session, "alice", "agent", "1", null, T0));
      j.transition(null, created, session);
      Execution d =
          Fixtures.step(
              j,
              created,
              Transition.to(created, ExecutionState.DISPATCHED, T0.plusMillis(1))
                  .withLease(new Lease("sidecar-1", T0.plusSeconds(30))));
      Execution c =
          Fixtures.step(
              j,
              d,
              Transition.to(d, ExecutionState.COMPLETED, T0.plusMillis(2))
                  .withOutcome(500, new RpcError(-32000, "token " + SECRET + " rejected"))
                  .withResult(
                      ("{\"echo\":\"" + SECRET + "\"}").getBytes(StandardCharsets.UTF_8), true));
      j.retry(c, RetryOutcome.REPLAYED, session, T0.plusMillis(3));
      assertThat(j.toString()).doesNotContain(SECRET);
    }

    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.toList();
    }
    assertThat(files).hasSizeGreaterThanOrEqualTo(5);
    for (Path f : files) {
      assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1))
          .as(f.getFileName().toString())
          .doesNotContain(SECRET)
          .doesNotContain("SECRET-MARKER");
    }
    String activity = Files.readString(dir.resolve(AuditFiles.ACTIVITY));
    assertThat(activity)
        .contains("\"rpc_error\":-32000")
        .contains("\"match\":\"idempotency_key\"")
        .contains("\"summary\":\"{card:string(redacted),amount:number}\"")
        .contains("\"session\":\"" + session.journalValue() + "\"");
    assertThat(session.toString()).doesNotContain(SECRET);
    assertThat(AuditTimeline.render(dir, Optional.empty())).doesNotContain(SECRET);
    assertThat(AuditTimeline.render(dir, Optional.of(created.id().value()))).doesNotContain(SECRET);
  }

  /**
   * The target is written into every activity entry of an append-only chain: a URL target keeps
   * neither its userinfo nor a credential-looking query value, whoever hands it over.
   */
  @Test
  void aCredentialInAUrlTargetNeverReachesTheChain() throws Exception {
    MutableClock clock = new MutableClock(T0);
    AuditOptions options =
        Fixtures.options(clock)
            .withTarget("https://bob:" + SECRET + "@mcp.example.com/mcp?tenant=a&token=" + SECRET);
    assertThat(options.target()).isEqualTo("https://mcp.example.com/mcp?tenant=a&token=<redacted>");
    try (AuditJournals j = AuditJournals.open(dir, options)) {
      Fixtures.happyPath(j, Fixtures.accepted("alice", "pay", "hmac-sha256:k1:aa", T0), true);
    }
    String activity = Files.readString(dir.resolve(AuditFiles.ACTIVITY));
    assertThat(activity)
        .doesNotContain(SECRET)
        .doesNotContain("bob")
        .contains("\"target\":\"https://mcp.example.com/mcp?tenant=a&token=<redacted>\"");
  }

  @Test
  void aMalformedKeyFileIsReportedWithoutEchoingIt() {
    String line = "tally-audit-key-v1 ed25519 0011223344556677 " + SECRET + "!";
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> AuditPublicKey.parse(line))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the key is not valid Base64")
        .message()
        .doesNotContain(SECRET);
  }
}
