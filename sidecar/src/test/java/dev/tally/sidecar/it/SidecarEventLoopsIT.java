package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.call.Admission;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.gate.Decision;
import dev.tally.core.gate.ToolCall;
import dev.tally.core.mcp.TallyError;
import dev.tally.sidecar.Sidecar;
import dev.tally.sidecar.SidecarOptions;
import io.vertx.core.Vertx;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@code sidecar.eventLoops} reaches the MCP listener: client connections are spread over one
 * listener per event loop, and each is handled on its loop.
 */
class SidecarEventLoopsIT {
  private Vertx vertx;
  private Sidecar sidecar;

  /** Refuses every call, remembering the thread that handled it (the connection's event loop). */
  private static final class ThreadRecorder implements Admission {
    final Set<String> threads = ConcurrentHashMap.newKeySet();
    final ContractRegistry contracts = ContractRegistry.defaults();

    @Override
    public CompletionStage<Decision> admit(ToolCall call) {
      threads.add(Thread.currentThread().getName());
      return CompletableFuture.completedFuture(
          new Decision.Refuse(TallyError.of(TallyError.Code.INVALID_REQUEST, "recorded")));
    }

    @Override
    public ContractRegistry contracts() {
      return contracts;
    }
  }

  @AfterEach
  void stop() throws Exception {
    if (sidecar != null) {
      sidecar.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private ThreadRecorder start(int loops) throws Exception {
    return start(loops, false);
  }

  private ThreadRecorder start(int loops, boolean nativeTransport) throws Exception {
    SidecarOptions options =
        SidecarOptions.builder(URI.create("http://127.0.0.1:9/mcp"))
            .port(0)
            .eventLoops(loops)
            .nativeTransport(nativeTransport)
            .build();
    vertx = Vertx.vertx(options.vertxOptions());
    ThreadRecorder gate = new ThreadRecorder();
    sidecar =
        Sidecar.start(vertx, options, gate, Clock.systemUTC())
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    return gate;
  }

  /** One tools/call on a fresh connection; returns the status line. */
  private String callOnNewConnection(int id) throws Exception {
    byte[] body =
        ("{\"jsonrpc\":\"2.0\",\"id\":"
                + id
                + ",\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{}}}")
            .getBytes(StandardCharsets.UTF_8);
    try (Socket s = new Socket("127.0.0.1", sidecar.port())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  + "Accept: application/json, text/event-stream\r\nConnection: close\r\n"
                  + "Content-Length: "
                  + body.length
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      InputStream in = s.getInputStream();
      String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return answer.substring(0, answer.indexOf('\r'));
    }
  }

  @Test
  void connectionsAreSpreadOverOneListenerPerEventLoop() throws Exception {
    ThreadRecorder gate = start(2);
    for (int i = 0; i < 6; i++) {
      assertThat(callOnNewConnection(i)).startsWith("HTTP/1.1 400");
    }
    List<Long> perListener = sidecar.connectionsPerListener();
    assertThat(perListener).hasSize(2).allSatisfy(n -> assertThat(n).isPositive());
    assertThat(perListener.stream().mapToLong(Long::longValue).sum()).isEqualTo(6);
    assertThat(gate.threads).hasSize(2).allSatisfy(t -> assertThat(t).contains("eventloop"));
  }

  @Test
  void oneEventLoopMeansOneListener() throws Exception {
    ThreadRecorder gate = start(1);
    for (int i = 0; i < 3; i++) {
      assertThat(callOnNewConnection(i)).startsWith("HTTP/1.1 400");
    }
    assertThat(sidecar.connectionsPerListener()).containsExactly(3L);
    assertThat(gate.threads).hasSize(1);
  }

  @Test
  void nativeTransportShipsWithTheSidecarAndServesOnLinux() throws Exception {
    Assumptions.assumeTrue(
        System.getProperty("os.name").startsWith("Linux"), "epoll is Linux only; not Linux here");
    ThreadRecorder gate = start(2, true);
    assertThat(vertx.isNativeTransportEnabled())
        .as("epoll: %s", vertx.unavailableNativeTransportCause())
        .isTrue();
    for (int i = 0; i < 4; i++) {
      assertThat(callOnNewConnection(i)).startsWith("HTTP/1.1 400");
    }
    assertThat(gate.threads).isNotEmpty();
  }
}
