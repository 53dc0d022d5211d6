package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.fingerprint.KeyFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile-clients issue, case 6: no credential reaches a log line, the journal or the audit chain.
 * A real {@code tally serve} gets a marker in every credential-bearing input — the upstream URL's
 * query, the admin token file, the HMAC key file, a tool call's {@code Authorization}, {@code
 * Cookie} and {@code X-Api-Key} headers, a secret argument, a wrong admin token — runs a write,
 * drains, and then every file under its data directory (journal and audit), every line of its
 * stdout and stderr and {@code tally audit show} are searched for each marker. A URL with userinfo
 * is refused at start without echoing it.
 */
class SecretsNeverWrittenIT {
  private static final Duration START = Duration.ofSeconds(60);
  private static final Duration ANSWER = Duration.ofSeconds(30);

  @RegisterExtension
  static final CountingUpstreamExtension UPSTREAM = new CountingUpstreamExtension();

  private final CountingUpstream upstream = UPSTREAM.get();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @TempDir Path dir;

  private static String marker(String what) {
    return "MARK" + what + UUID.randomUUID().toString().replace("-", "");
  }

  @Test
  void noCredentialOfAnyInputReachesALogLineTheJournalOrTheAudit() throws Exception {
    Map<String, String> markers = new LinkedHashMap<>();
    markers.put("upstream query token", marker("query"));
    markers.put("admin token", marker("admin"));
    markers.put("bearer token", marker("bearer"));
    markers.put("cookie", marker("cookie"));
    markers.put("x-api-key header", marker("apikey"));
    markers.put("secret argument", marker("argument"));
    markers.put("wrong admin token", marker("wrongadmin"));

    Path data = dir.resolve("data");
    Path keys = dir.resolve("keys").resolve("hmac.keys");
    KeyFiles.generate(keys, Clock.systemUTC());
    String keyText = Files.readString(keys).strip();
    markers.put("hmac key material", keyText.substring(keyText.lastIndexOf(':') + 1));
    Path tokenFile = dir.resolve("admin.token");
    Files.writeString(tokenFile, markers.get("admin token") + "\n");
    Path config = dir.resolve("tally.yaml");
    Files.writeString(
        config,
        "upstream:\n  url: "
            + upstream.url()
            + "?tenant=acme&token="
            + markers.get("upstream query token")
            + "\nstore: journal:"
            + data.resolve("journal")
            + "\nadmin:\n  tokenFile: "
            + tokenFile
            + "\ntools:\n  create_ticket:\n    fingerprint:\n      secrets: [/apiKey]\n");

    // Every line there is: DEBUG, as JSON objects with their key-value fields (issue 19).
    TallyProcess p =
        TallyProcess.serve(
                dir,
                config,
                TallyProcess.SMALL_JVM,
                Map.of("TALLY_LOG_FORMAT", "json", "TALLY_LOG_LEVEL", "DEBUG"),
                "--hmac-key-file",
                keys.toString())
            .awaitListening(START);
    String title = "secrets-" + UUID.randomUUID();
    String id;
    try (p) {
      McpClient.Answer a = call(p.mcp(), title, markers);
      assertThat(a.isToolResult()).as(a.body()).isTrue();
      List<CountingUpstream.Receipt> got = upstream.receipts(title);
      assertThat(got).hasSize(1);
      assertThat(got.get(0).authorization())
          .as("the bearer token went through to the upstream")
          .isEqualTo("Bearer " + markers.get("bearer token"));
      id = got.get(0).executionId();
      awaitDelivered(p, id, markers.get("admin token"));
      HttpResponse<String> wrong = admin(p, "/v1/executions", markers.get("wrong admin token"));
      assertThat(wrong.statusCode()).isEqualTo(401);
      assertThat(wrong.body()).doesNotContain(markers.get("wrong admin token"));
      p.terminate();
      assertThat(p.awaitExit(Duration.ofSeconds(40))).as(p.output()).isZero();
    }

    // Positive controls: the files and lines searched are the ones that hold the run.
    String startLine = p.stdout();
    assertThat(startLine)
        .contains("-> " + upstream.url() + "?tenant=acme&token=<redacted>;")
        .contains("tally: drained");
    Map<String, String> searched = new LinkedHashMap<>();
    try (Stream<Path> files = Files.walk(data)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(f)) {
          searched.put(
              dir.relativize(f).toString(),
              new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
        }
      }
    }
    assertThat(searched.keySet())
        .anyMatch(f -> f.startsWith("data/journal/journal-"))
        .contains("data/journal/audit/activity.jsonl", "data/journal/audit/sessions.jsonl");
    assertThat(String.join("\n", searched.values()))
        .as("the journal holds the stored result")
        .contains(title);
    assertThat(searched.get("data/journal/audit/activity.jsonl"))
        .contains("\"target\":\"" + upstream.url() + "?tenant=acme&token=<redacted>\"");
    searched.put("stdout", startLine);
    searched.put("stderr", p.stderr());
    try (TallyProcess show =
        TallyProcess.start(
            dir,
            TallyProcess.SMALL_JVM,
            Map.of(),
            List.of(
                "audit",
                "show",
                data.resolve("journal").resolve("audit").toString(),
                "--execution",
                id))) {
      assertThat(show.awaitExit(START)).as(show.output()).isZero();
      searched.put("tally audit show", show.stdout() + show.stderr());
    }
    assertThat(searched.get("tally audit show")).contains(upstream.url());

    List<String> leaks = new ArrayList<>();
    markers.forEach(
        (what, m) ->
            searched.forEach(
                (where, text) -> {
                  if (text.contains(m)) {
                    leaks.add(what + " in " + where);
                  }
                }));
    assertThat(leaks).as("credentials written somewhere").isEmpty();
  }

  @Test
  void anUpstreamUrlWithAPasswordIsRefusedAtStartWithoutEchoingIt() throws Exception {
    String password = marker("password");
    URI u = URI.create(upstream.url());
    String url = "http://opsbot:" + password + "@" + u.getAuthority() + u.getPath();
    try (TallyProcess p =
        TallyProcess.start(
            dir,
            TallyProcess.SMALL_JVM,
            Map.of(),
            List.of(
                "serve",
                "--upstream",
                url,
                "--store",
                "journal:" + dir.resolve("data").resolve("journal"),
                "--listen",
                "127.0.0.1:0",
                "--admin",
                "127.0.0.1:0"))) {
      assertThat(p.awaitExit(START)).as(p.output()).isEqualTo(2);
      assertThat(p.stderr().strip())
          .doesNotContain("\n")
          .contains("upstream.url: http://<redacted>@" + u.getAuthority())
          .contains("Authorization header");
      assertThat(p.stdout() + p.stderr()).doesNotContain(password).doesNotContain("opsbot");
    }
    assertThat(dir.resolve("data")).as("nothing was written").doesNotExist();
  }

  /** A {@code tools/call} carrying every request-side marker, on its own connection. */
  private static McpClient.Answer call(URI mcp, String title, Map<String, String> markers)
      throws IOException {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\""
            + CountingUpstream.IRREVERSIBLE
            + "\",\"arguments\":{\"title\":\""
            + title
            + "\",\"apiKey\":\""
            + markers.get("secret argument")
            + "\"}}}";
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    String head =
        "POST "
            + mcp.getRawPath()
            + " HTTP/1.1\r\nHost: 127.0.0.1:"
            + mcp.getPort()
            + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream"
            + "\r\nMCP-Protocol-Version: 2025-11-25\r\nAuthorization: Bearer "
            + markers.get("bearer token")
            + "\r\nCookie: session="
            + markers.get("cookie")
            + "\r\nX-Api-Key: "
            + markers.get("x-api-key header")
            + "\r\nConnection: close\r\nContent-Length: "
            + bytes.length
            + "\r\n\r\n";
    try (Socket s = new Socket()) {
      s.setSoTimeout((int) ANSWER.toMillis());
      s.connect(new InetSocketAddress(mcp.getHost(), mcp.getPort()), 10_000);
      OutputStream out = s.getOutputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.write(bytes);
      out.flush();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream raw = new ByteArrayOutputStream();
      in.transferTo(raw);
      return McpClient.parse(raw.toByteArray());
    }
  }

  private HttpResponse<String> admin(TallyProcess p, String path, String token)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(p.admin(path))
            .timeout(ANSWER)
            .header("Authorization", "Bearer " + token)
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private void awaitDelivered(TallyProcess p, String id, String token) throws Exception {
    String[] last = {""};
    Poll.until(
        Duration.ofSeconds(20),
        () -> {
          try {
            last[0] = admin(p, "/v1/executions/" + id, token).body();
            return last[0].contains("\"state\":\"delivered\"");
          } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
          }
        },
        () -> id + ": " + last[0]);
  }
}
