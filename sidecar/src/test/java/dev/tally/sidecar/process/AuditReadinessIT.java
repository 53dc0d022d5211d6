package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An audit journal that cannot write (a full disk) fails every side-effecting call before anything
 * reaches the upstream, and readiness says so: a load balancer stops sending calls that would all
 * fail. {@code activity.jsonl} is a link to {@code /dev/full}, whose writes fail with ENOSPC.
 */
class AuditReadinessIT {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension
  static final CountingUpstreamExtension UPSTREAM = new CountingUpstreamExtension();

  private final CountingUpstream upstream = UPSTREAM.get();

  @TempDir Path dir;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private HttpResponse<String> get(URI uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri).timeout(WAIT).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aFullAuditDiskFailsCallsBeforeTheUpstreamAndTurnsReadinessOff() throws Exception {
    Path full = Path.of("/dev/full");
    assumeTrue(Files.exists(full), "needs /dev/full (Linux)");
    Files.createDirectories(dir.resolve("journal").resolve("audit"));
    Files.createSymbolicLink(
        dir.resolve("journal").resolve("audit").resolve("activity.jsonl"), full);
    List<String> log = new CopyOnWriteArrayList<>();
    try (InJvmTally tally = InJvmTally.start(dir, upstream.url(), "", log::add)) {
      Poll.until(
          WAIT,
          () -> {
            try {
              return get(tally.admin("/readyz")).statusCode() == 200;
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          },
          () -> "never ready");

      String call =
          "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":"
              + "\"create_ticket\",\"arguments\":{\"title\":\"audit-full\"}}}";
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(tally.mcp)
                  .timeout(WAIT)
                  .header("Content-Type", "application/json")
                  .header("Accept", "application/json, text/event-stream")
                  .POST(HttpRequest.BodyPublishers.ofString(call))
                  .build(),
              HttpResponse.BodyHandlers.ofString());

      assertThat(r.body()).as(r.body()).contains("\"error\"").doesNotContain("created ticket");
      assertThat(upstream.receipts("audit-full")).isEmpty();
      HttpResponse<String> ready = get(tally.admin("/readyz"));
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(ready.body())
          .contains("audit journal cannot write")
          .contains("activity.jsonl")
          .contains("No space left on device");
    }
  }
}
