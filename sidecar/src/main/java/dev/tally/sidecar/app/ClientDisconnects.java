package dev.tally.sidecar.app;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps ordinary client disconnects (a reset connection, a broken pipe, a stream closed under a
 * response) out of the log above DEBUG: a library reporting one at ERROR or WARN is denied, and the
 * fact goes to {@code dev.tally.disconnects} at DEBUG, naming only the exception's class. The
 * agent's retry is Tally's business, not an operator's.
 */
public final class ClientDisconnects extends Filter<ILoggingEvent> {
  private static final Logger DISCONNECTS = LoggerFactory.getLogger("dev.tally.disconnects");

  @Override
  public FilterReply decide(ILoggingEvent event) {
    if (event.getLoggerName().equals("dev.tally.disconnects")) {
      return FilterReply.NEUTRAL;
    }
    IThrowableProxy t = event.getThrowableProxy();
    String disconnect = disconnect(t, event.getFormattedMessage());
    if (disconnect == null) {
      return FilterReply.NEUTRAL;
    }
    DISCONNECTS.debug(
        "client disconnected ({}, reported by {})", disconnect, event.getLoggerName());
    return FilterReply.DENY;
  }

  /** The class name of the disconnect in {@code t}'s chain (or the message), else null. */
  static String disconnect(IThrowableProxy t, String message) {
    for (int depth = 0; t != null && depth < 8; depth++, t = t.getCause()) {
      if (isDisconnect(t.getClassName(), t.getMessage())) {
        return t.getClassName();
      }
    }
    return isDisconnect("", message) ? "message" : null;
  }

  private static boolean isDisconnect(String className, String message) {
    if (className.endsWith("ClosedChannelException")
        || className.endsWith("HttpClosedException")
        || className.endsWith("StreamResetException")) {
      return true;
    }
    if (message == null) {
      return false;
    }
    String m = message.toLowerCase(Locale.ROOT);
    return m.startsWith("connection reset")
        || m.contains("broken pipe")
        || m.equals("connection was closed");
  }
}
