package dev.tally.filter;

import dev.tally.core.mcp.Headers;
import jakarta.servlet.http.HttpServletRequest;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.List;
import javax.security.auth.x500.X500Principal;

/**
 * The request's headers as core's {@link Headers} (the container matches names ignoring case),
 * every value of a repeated header included, and the subject of the client certificate the
 * container verified ({@code jakarta.servlet.request.X509Certificate}, Servlet 6 §3.10).
 */
record ServletHeaders(HttpServletRequest request) implements Headers {
  static final String CERTIFICATES = "jakarta.servlet.request.X509Certificate";

  @Override
  public String get(String name) {
    return request.getHeader(name);
  }

  @Override
  public List<String> all(String name) {
    var values = request.getHeaders(name);
    return values == null ? List.of() : Collections.list(values);
  }

  @Override
  public String clientSubject() {
    Object chain = request.getAttribute(CERTIFICATES);
    if (chain instanceof X509Certificate[] certs && certs.length > 0 && certs[0] != null) {
      return certs[0].getSubjectX500Principal().getName(X500Principal.RFC2253);
    }
    return null;
  }
}
