package dev.tally.sidecar.it;

import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.testing.AdapterScenarioSuite;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The shared adapter scenarios against the sidecar (real gate, memory store) in front of the MCP
 * Java SDK: the same suite the servlet filter binds, so the two adapters cannot drift.
 */
class SidecarAdapterScenariosIT extends AdapterScenarioSuite {
  private static final int MAX_REQUEST = 64 * 1024;
  private static SidecarHarness h;

  @BeforeAll
  static void start() throws Exception {
    h = SidecarHarness.real(b -> b.maxRequestBytes(MAX_REQUEST));
  }

  @AfterAll
  static void stop() throws Exception {
    h.close();
  }

  @Override
  protected URI endpoint() {
    return URI.create(h.url);
  }

  @Override
  protected int sideEffects() {
    return h.upstream.sideEffects.get();
  }

  @Override
  protected int recordedExecutions(String tool) {
    try {
      return h.store
          .list(new ExecutionQuery(null, tool, null, null, ExecutionQuery.MAX_LIMIT))
          .toCompletableFuture()
          .get(5, TimeUnit.SECONDS)
          .items()
          .size();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected String writeTool() {
    return "create_ticket";
  }

  @Override
  protected String readTool() {
    return "get_ticket";
  }

  @Override
  protected int maxRequestBytes() {
    return MAX_REQUEST;
  }

  @Override
  protected int upstreamRequests() {
    return h.upstream.posts.get();
  }
}
