package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.http.HttpServletRequest;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The filter hands core every value of a repeated header (so a trusted header sent twice is
 * refused) and the subject of the client certificate the container verified (issue 22 case 5).
 */
class ServletHeadersTest {
  static HttpServletRequest request(Map<String, List<String>> headers, Object certificates) {
    return (HttpServletRequest)
        Proxy.newProxyInstance(
            ServletHeadersTest.class.getClassLoader(),
            new Class<?>[] {HttpServletRequest.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "getHeader" -> {
                    List<String> v = headers.get(((String) args[0]).toLowerCase());
                    yield v == null || v.isEmpty() ? null : v.get(0);
                  }
                  case "getHeaders" ->
                      Collections.enumeration(
                          headers.getOrDefault(((String) args[0]).toLowerCase(), List.of()));
                  case "getAttribute" ->
                      ServletHeaders.CERTIFICATES.equals(args[0]) ? certificates : null;
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }

  @Test
  void everyValueOfARepeatedHeaderIsSeen() {
    ServletHeaders h =
        new ServletHeaders(request(Map.of("x-forwarded-user", List.of("alice", "bob")), null));
    assertThat(h.get("X-Forwarded-User")).isEqualTo("alice");
    assertThat(h.all("X-Forwarded-User")).containsExactly("alice", "bob");
    assertThat(h.all("X-Other")).isEmpty();
    assertThat(h.clientSubject()).isNull();
  }

  @Test
  void theVerifiedClientCertificateSubjectIsRead() throws Exception {
    X509Certificate cert;
    try (InputStream in = getClass().getResourceAsStream("/identity/agent-7.pem")) {
      cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    ServletHeaders h = new ServletHeaders(request(Map.of(), new X509Certificate[] {cert}));
    assertThat(h.clientSubject()).isEqualTo("CN=agent-7,O=Example");
    assertThat(new ServletHeaders(request(Map.of(), new X509Certificate[0])).clientSubject())
        .isNull();
  }
}
