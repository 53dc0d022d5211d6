package dev.tally.filter;

import dev.tally.core.mcp.Headers;
import jakarta.servlet.http.HttpServletRequest;

/** The request's headers as core's {@link Headers} (the container matches names ignoring case). */
record ServletHeaders(HttpServletRequest request) implements Headers {
  @Override
  public String get(String name) {
    return request.getHeader(name);
  }
}
