package dev.tally.sidecar.process;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link CountingUpstream} for the tests of a class: {@code @RegisterExtension static final
 * CountingUpstreamExtension UPSTREAM = new CountingUpstreamExtension();}, then {@code
 * UPSTREAM.get()}.
 */
final class CountingUpstreamExtension implements BeforeAllCallback, AfterAllCallback {
  private CountingUpstream upstream;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    upstream = CountingUpstream.start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    upstream.close();
  }

  CountingUpstream get() {
    return upstream;
  }
}
