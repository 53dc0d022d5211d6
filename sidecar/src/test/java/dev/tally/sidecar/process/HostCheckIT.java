package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * DNS rebinding through the {@code Host} header (MCP transports, "Security Warning"): a web page
 * whose name was re-pointed at 127.0.0.1 reaches the loopback ports with its own name in {@code
 * Host} and, on a GET or a same-origin request, no foreign {@code Origin}. The sidecar rewrites
 * {@code Host} for the upstream, so the upstream's own check cannot see it: the sidecar must refuse
 * such requests itself, on the MCP port and on the admin port, before anything is dispatched. The
 * admin port also refuses cross-site requests (a foreign {@code Origin}), which need no rebinding.
 */
class HostCheckIT {
  @RegisterExtension
  static final CountingUpstreamExtension UPSTREAM = new CountingUpstreamExtension();

  private final CountingUpstream upstream = UPSTREAM.get();
  private final List<String> log = new CopyOnWriteArrayList<>();
  private InJvmTally tally;

  @AfterEach
  void stop() {
    if (tally != null) {
      tally.close();
    }
  }

  @Test
  void aLoopbackSidecarRefusesAForeignHostOnBothPortsAndRunsNothing() throws Exception {
    tally = InJvmTally.start("memory", upstream.url(), "", log::add);
    String title = "rebind-" + UUID.randomUUID();

    Answer refused = post(tally.mcp, "evil.example.com:" + tally.mcp.getPort(), title);
    assertThat(refused.status).isEqualTo(403);
    assertThat(refused.body).contains("\"code\":-32600").contains("FORBIDDEN_HOST");
    assertThat(refused.body).doesNotContain("evil.example.com");
    assertThat(upstream.sideEffects(title)).isZero();

    Answer admin = get(tally.admin("/v1/executions"), "evil.example.com");
    assertThat(admin.status).isEqualTo(403);
    assertThat(admin.body).contains("FORBIDDEN_HOST");
    assertThat(get(tally.admin("/healthz"), "evil.example.com").status).isEqualTo(403);

    // The names a local client really uses pass, on either port.
    Answer ok = post(tally.mcp, "localhost:" + tally.mcp.getPort(), title);
    assertThat(ok.status).isEqualTo(200);
    assertThat(ok.body).contains("\"result\"");
    assertThat(upstream.sideEffects(title)).isEqualTo(1);
    assertThat(get(tally.admin("/v1/executions"), "127.0.0.1").status).isEqualTo(200);
  }

  @Test
  void configuredNamesPassAndAStarTurnsTheCheckOff() throws Exception {
    tally =
        InJvmTally.start(
            "memory",
            upstream.url(),
            "sidecar:\n  listen: 127.0.0.1:0\n  allowedHosts: [mcp.example.com]\n",
            log::add);
    String title = "named-" + UUID.randomUUID();
    assertThat(post(tally.mcp, "MCP.example.com:8443", title).status).isEqualTo(200);
    assertThat(get(tally.admin("/healthz"), "mcp.example.com").status).isEqualTo(200);
    assertThat(post(tally.mcp, "other.example.com", title).status).isEqualTo(403);
    assertThat(upstream.sideEffects(title)).isEqualTo(1);
    tally.close();

    tally =
        InJvmTally.start(
            "memory",
            upstream.url(),
            "sidecar:\n  listen: 127.0.0.1:0\n  allowedHosts: ['*']\n",
            log::add);
    assertThat(post(tally.mcp, "anything.example.com", "star-" + UUID.randomUUID()).status)
        .isEqualTo(200);
  }

  @Test
  void theAdminPortRefusesCrossSiteRequests() throws Exception {
    tally = InJvmTally.start("memory", upstream.url(), "", log::add);
    String id = "act_01JWNNSVG0QQ2XZ6M681GB464W";
    URI cancel = tally.admin("/v1/executions/" + id + "/cancel");
    // A page on another site posting to the loopback admin port (a "simple" cross-site POST).
    Answer crossSite =
        exchange(
            cancel,
            "POST "
                + cancel.getRawPath()
                + " HTTP/1.1\r\nHost: 127.0.0.1:"
                + cancel.getPort()
                + "\r\nOrigin: https://evil.example\r\nContent-Length: 0\r\nConnection: close"
                + "\r\n\r\n");
    assertThat(crossSite.status).isEqualTo(403);
    assertThat(crossSite.body).contains("FORBIDDEN_ORIGIN");

    // Operators' tools send no Origin and pass the Origin rule; a state change then needs the
    // admin token, which this sidecar has none of (stricter since the admin port moved to Vert.x
    // Web: it used to be routed, here to 404).
    Answer operator =
        exchange(
            cancel,
            "POST "
                + cancel.getRawPath()
                + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    assertThat(operator.status).isEqualTo(403);
    assertThat(operator.body).contains("TOKEN_NOT_CONFIGURED");
    URI health = tally.admin("/healthz");
    assertThat(
            exchange(
                    health,
                    "GET /healthz HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost:3000"
                        + "\r\nConnection: close\r\n\r\n")
                .status)
        .isEqualTo(200);
  }

  private record Answer(int status, String body) {}

  private static Answer post(URI mcp, String host, String title) throws Exception {
    String body = McpClient.call(1, CountingUpstream.IRREVERSIBLE, title);
    return exchange(
        mcp,
        "POST "
            + mcp.getRawPath()
            + " HTTP/1.1\r\nHost: "
            + host
            + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream"
            + "\r\nMCP-Protocol-Version: 2025-11-25\r\nConnection: close\r\nContent-Length: "
            + body.getBytes(StandardCharsets.UTF_8).length
            + "\r\n\r\n"
            + body);
  }

  private static Answer get(URI uri, String host) throws Exception {
    String path = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    return exchange(
        uri, "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
  }

  /** One HTTP/1.1 exchange on its own connection, with the Host header as given. */
  private static Answer exchange(URI uri, String request) throws Exception {
    try (Socket s = new Socket()) {
      s.setSoTimeout(20_000);
      s.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 10_000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.UTF_8));
      out.flush();
      InputStream in = s.getInputStream();
      String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      int status = Integer.parseInt(all.substring(9, 12));
      int split = all.indexOf("\r\n\r\n");
      return new Answer(status, split < 0 ? "" : all.substring(split + 4));
    }
  }
}
