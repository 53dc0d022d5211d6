package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.sidecar.process.CountingUpstream.Script;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile-clients issue, case 7, against real {@code tally serve} processes: a page on another
 * localhost port cannot confirm a pending action (no state change without the token, no simple
 * request type, no foreign origin); a short admin token refuses the start; the resolve body is read
 * strictly and must hold an MCP result; every journal, audit and key file the sidecar creates is
 * its owner's only.
 */
class HostileAdminIT {
  private static final Duration START = Duration.ofSeconds(60);
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String TOKEN = "hostile-admin-" + UUID.randomUUID();
  private static final String CONFIRM_TOOLS =
      "tools:\n  create_ticket:\n    confirmationRequired: true\n";

  @TempDir static Path shared;
  @TempDir Path dir;

  private static CountingUpstream upstream;
  private static McpClient agent;
  private static TallyProcess tally;

  @BeforeAll
  static void start() throws Exception {
    upstream = CountingUpstream.start();
    agent = new McpClient();
    Path token = shared.resolve("admin.token");
    Files.writeString(token, TOKEN + "\n");
    tally =
        serve(shared, "admin:\n  tokenFile: " + token + "\n" + CONFIRM_TOOLS, Map.of())
            .awaitListening(START);
  }

  @AfterAll
  static void stop() throws Exception {
    if (tally != null) {
      tally.close();
    }
    agent.close();
    upstream.close();
  }

  private static TallyProcess serve(Path dir, String yaml, Map<String, String> env)
      throws IOException {
    Path config = dir.resolve("tally.yaml");
    Files.writeString(
        config,
        "upstream:\n  url: "
            + upstream.url()
            + "\nstore: journal:"
            + dir.resolve("data").resolve("journal")
            + "\n"
            + yaml);
    return TallyProcess.serve(dir, config, TallyProcess.SMALL_JVM, env);
  }

  /** The exploit: a page on localhost:3000 posting text/plain to the loopback port. */
  @Test
  void aPageOnAnotherLocalhostPortCannotConfirmAPendingCall() throws Exception {
    // The default deployment: loopback admin port, no token.
    try (TallyProcess open = serve(dir, CONFIRM_TOOLS, Map.of()).awaitListening(START)) {
      String title = "csrf-" + UUID.randomUUID();
      String id = pending(open, title);
      URI confirm = open.admin("/v1/executions/" + id + "/confirm");
      Answer page =
          post(confirm, null, "text/plain;charset=UTF-8", "{}", "Origin: http://localhost:3000");
      assertThat(page.status).as(page.body).isEqualTo(403);
      assertThat(page.body).contains("FORBIDDEN_ORIGIN");
      Answer noOrigin = post(confirm, null, "application/json", "{}");
      assertThat(noOrigin.status).as(noOrigin.body).isEqualTo(403);
      assertThat(noOrigin.body).contains("TOKEN_NOT_CONFIGURED");

      McpClient.Answer retry =
          agent.call(open.mcp(), 2, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
      assertThat(retry.tallyCode()).as(retry.body()).isEqualTo("PENDING_CONFIRMATION");
      assertThat(upstream.sideEffects(title)).as("nothing was confirmed").isZero();
    }

    // With the token: the page still cannot, with or without a simple request type.
    String title = "csrf-token-" + UUID.randomUUID();
    String id = pending(tally, title);
    URI confirm = tally.admin("/v1/executions/" + id + "/confirm");
    for (String type :
        List.of(
            "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b")) {
      Answer r = post(confirm, TOKEN, type, "{}");
      assertThat(r.status).as(type + " " + r.body).isEqualTo(415);
      assertThat(r.body).contains("UNSUPPORTED_MEDIA_TYPE");
    }
    Answer foreign =
        post(confirm, TOKEN, "application/json", "{}", "Origin: http://localhost:3000");
    assertThat(foreign.status).as(foreign.body).isEqualTo(403);
    assertThat(upstream.sideEffects(title)).isZero();

    Answer operator = post(confirm, TOKEN, "application/json", "");
    assertThat(operator.status).as(operator.body).isEqualTo(403);
    assertThat(operator.body).contains("DECIDED_BY_ITS_ACTOR");
    McpClient.Answer run =
        agent.call(tally.mcp(), 3, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(run.tallyCode()).as(run.body()).isEqualTo("PENDING_CONFIRMATION");
    assertThat(upstream.sideEffects(title)).isZero();
  }

  @Test
  void anAdminTokenShorterThan32CharactersRefusesTheStartWithoutEchoingIt() throws Exception {
    String shortToken = "Zq7";
    try (TallyProcess p = serve(dir, "", Map.of("TALLY_ADMIN_TOKEN", shortToken))) {
      assertThat(p.awaitExit(START)).as(p.output()).isEqualTo(2);
      assertThat(p.stderr().strip())
          .doesNotContain("\n")
          .contains("admin.tokenFile: env TALLY_ADMIN_TOKEN: the token is 3 characters")
          .contains("at least 32")
          .doesNotContain(shortToken);
    }
    Path file = dir.resolve("short.token");
    String sixteen = "0123456789abcdef"; // accepted before, 16 characters
    Files.writeString(file, sixteen);
    try (TallyProcess p = serve(dir, "admin:\n  tokenFile: " + file + "\n", Map.of())) {
      assertThat(p.awaitExit(START)).as(p.output()).isEqualTo(2);
      assertThat(p.stderr()).contains("admin.tokenFile").contains("is 16 characters");
      assertThat(p.stdout() + p.stderr()).doesNotContain(sixteen);
    }
  }

  @Test
  void aResolveWithDuplicateMembersOrAResultThatIsNoMcpResultIsRefusedAndChangesNothing()
      throws Exception {
    String title = "strict-" + UUID.randomUUID();
    upstream.script(title, Script.RESET); // performed, then the connection closes unanswered
    agent.call(tally.mcp(), 1, CountingUpstream.KEYED, title, null, WAIT);
    String id = awaitOnly(title, "outcome_unknown");
    URI resolve = tally.admin("/v1/executions/" + id + "/resolve");
    String text = "{\"content\":[{\"type\":\"text\",\"text\":\"created T-1\"}]}";

    // A lenient parser took the last "outcome" and settled this as completed.
    Answer twice =
        post(
            resolve,
            TOKEN,
            "application/json",
            "{\"outcome\":\"failed\",\"outcome\":\"completed\",\"result\":" + text + "}");
    assertThat(twice.status).as(twice.body).isEqualTo(400);
    assertThat(twice.body).contains("INVALID_BODY").contains("duplicate member \\\"outcome\\\"");
    for (String notMcp :
        List.of(
            "{\"ticket\":\"T-1\"}",
            "{\"content\":\"created T-1\"}",
            "{\"content\":[{\"type\":\"text\"}]}",
            "{\"content\":[],\"isError\":\"false\"}")) {
      Answer r =
          post(
              resolve,
              TOKEN,
              "application/json",
              "{\"outcome\":\"completed\",\"result\":" + notMcp + "}");
      assertThat(r.status).as(notMcp + " " + r.body).isEqualTo(400);
      assertThat(r.body).contains("INVALID_BODY").contains("result.");
    }
    assertThat(state(id)).as("nothing settled it").isEqualTo("outcome_unknown");

    Answer ok =
        post(
            resolve,
            TOKEN,
            "application/json",
            "{\"outcome\":\"completed\",\"result\":" + text + "}");
    assertThat(ok.status).as(ok.body).isEqualTo(200);
    assertThat(state(id)).isEqualTo("completed_not_delivered");
    assertThat(upstream.sideEffects(title)).isOne();
  }

  /** Journal segments, audit journals, locks and the generated HMAC key: 0600 in 0700 dirs. */
  @Test
  void everyFileTheSidecarCreatesIsItsOwnersOnly() throws Exception {
    Path data = shared.resolve("data");
    assumeTrue(data.getFileSystem().supportedFileAttributeViews().contains("posix"));
    McpClient.Answer a =
        agent.call(
            tally.mcp(), 1, CountingUpstream.KEYED, "modes-" + UUID.randomUUID(), null, WAIT);
    assertThat(a.isToolResult()).as(a.body()).isTrue();
    Map<String, String> modes = new TreeMap<>();
    try (Stream<Path> all = Files.walk(data)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        String name = data.relativize(p) + (Files.isDirectory(p) ? "/" : "");
        modes.put(name, PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
      }
    }
    assertThat(modes.keySet())
        .contains(
            "/",
            "journal/",
            "journal/hmac.keys",
            "journal/tally.lock",
            "journal/audit/",
            "journal/audit/activity.jsonl",
            "journal/audit/sessions.jsonl",
            "journal/audit/audit-signing.key")
        .anyMatch(n -> n.startsWith("journal/journal-"));
    assertThat(modes)
        .allSatisfy(
            (name, mode) ->
                assertThat(mode)
                    .as(name)
                    .isEqualTo(
                        name.endsWith("/")
                            ? "rwx------"
                            : name.equals("journal/audit/audit-public.key")
                                ? "rw-r--r--"
                                : "rw-------"));
  }

  // ---- helpers --------------------------------------------------------------------------------

  private record Answer(int status, String body) {}

  /** Makes a call that needs confirmation; returns its execution id. */
  private static String pending(TallyProcess p, String title) throws Exception {
    McpClient.Answer first =
        agent.call(p.mcp(), 1, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(first.tallyCode()).as(first.body()).isEqualTo("PENDING_CONFIRMATION");
    return first.result().path("structuredContent").path("tally").path("executionId").asText();
  }

  private static String state(String id) throws Exception {
    return admin("/v1/executions/" + id).path("state").asText();
  }

  private static JsonNode admin(String pathAndQuery) throws Exception {
    Answer a = exchange(tally.admin(pathAndQuery), "GET", TOKEN, null, null);
    assertThat(a.status).as(a.body).isEqualTo(200);
    return McpClient.JSON.readTree(a.body);
  }

  private static String awaitOnly(String title, String state) throws Exception {
    Poll.until(
        WAIT,
        () -> !upstream.receipts(title).isEmpty(),
        () -> title + " never reached the upstream");
    String id = upstream.receipts(title).get(0).executionId();
    String[] last = {""};
    Poll.until(
        WAIT,
        () -> {
          try {
            last[0] = state(id);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          return last[0].equals(state);
        },
        () -> id + " is " + last[0]);
    return id;
  }

  private static Answer post(
      URI uri, String token, String contentType, String body, String... headers)
      throws IOException {
    return exchange(uri, "POST", token, contentType, body, headers);
  }

  /** One HTTP/1.1 exchange on its own connection, exactly the headers given. */
  private static Answer exchange(
      URI uri, String method, String token, String contentType, String body, String... headers)
      throws IOException {
    byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    StringBuilder h = new StringBuilder();
    h.append(method).append(' ').append(uri.getRawPath());
    if (uri.getRawQuery() != null) {
      h.append('?').append(uri.getRawQuery());
    }
    h.append(" HTTP/1.1\r\nHost: 127.0.0.1:").append(uri.getPort()).append("\r\n");
    if (token != null) {
      h.append("Authorization: Bearer ").append(token).append("\r\n");
    }
    if (contentType != null) {
      h.append("Content-Type: ").append(contentType).append("\r\n");
    }
    for (String extra : headers) {
      h.append(extra).append("\r\n");
    }
    h.append("Content-Length: ").append(bytes.length).append("\r\nConnection: close\r\n\r\n");
    try (Socket s = new Socket()) {
      s.setSoTimeout((int) WAIT.toMillis());
      s.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 10_000);
      OutputStream out = s.getOutputStream();
      out.write(h.toString().getBytes(StandardCharsets.US_ASCII));
      out.write(bytes);
      out.flush();
      InputStream in = s.getInputStream();
      String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      int split = all.indexOf("\r\n\r\n");
      return new Answer(
          Integer.parseInt(all.substring(9, 12)), split < 0 ? "" : all.substring(split + 4));
    }
  }
}
