package dev.tally.sidecar.app;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.spi.FilterReply;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import org.junit.jupiter.api.Test;

class ClientDisconnectsTest {
  private final LoggerContext context = new LoggerContext();
  private final ClientDisconnects filter = new ClientDisconnects();

  private FilterReply decide(Level level, String message, Throwable t) {
    LoggingEvent e =
        new LoggingEvent(
            "x",
            context.getLogger("io.vertx.core.net.impl.ConnectionBase"),
            level,
            message,
            t,
            null);
    return filter.decide(e);
  }

  @Test
  void resetsBrokenPipesAndClosedChannelsAreDropped() {
    assertThat(decide(Level.ERROR, "oops", new IOException("Connection reset")))
        .isEqualTo(FilterReply.DENY);
    assertThat(decide(Level.WARN, "x", new IOException("Broken pipe"))).isEqualTo(FilterReply.DENY);
    assertThat(decide(Level.ERROR, "x", new RuntimeException(new ClosedChannelException())))
        .isEqualTo(FilterReply.DENY);
    assertThat(decide(Level.ERROR, "Connection was closed", null)).isEqualTo(FilterReply.DENY);
  }

  @Test
  void everythingElseGoesOn() {
    assertThat(decide(Level.ERROR, "disk full", new IOException("No space left on device")))
        .isEqualTo(FilterReply.NEUTRAL);
    assertThat(decide(Level.WARN, "upstream unreachable", null)).isEqualTo(FilterReply.NEUTRAL);
  }
}
