package dev.tally.filter;

import dev.tally.core.testing.AdapterScenarioSuite;
import java.net.URI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The shared adapter scenarios against the filter in front of the MCP Java SDK in Jetty. */
class FilterAdapterScenariosIT extends AdapterScenarioSuite {
  private static final int MAX_REQUEST = 64 * 1024;
  private static SdkApp app;

  @BeforeAll
  static void start() throws Exception {
    app = SdkApp.withFilter(FilterSettings.defaults().withLimits(MAX_REQUEST, 1024 * 1024));
  }

  @AfterAll
  static void stop() throws Exception {
    app.close();
  }

  @Override
  protected URI endpoint() {
    return app.endpoint();
  }

  @Override
  protected int sideEffects() {
    return app.writes.get();
  }

  @Override
  protected int recordedExecutions(String tool) {
    return app.records(tool);
  }

  @Override
  protected String writeTool() {
    return SdkApp.WRITE;
  }

  @Override
  protected String readTool() {
    return SdkApp.READ;
  }

  @Override
  protected int maxRequestBytes() {
    return MAX_REQUEST;
  }

  @Override
  protected int upstreamRequests() {
    return app.reachedServlet.get();
  }
}
