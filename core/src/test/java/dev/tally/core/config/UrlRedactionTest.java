package dev.tally.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

class UrlRedactionTest {
  private static final String MARKER = "Mk7-upstream-secret";

  @Test
  void aPlainUrlIsKeptAsItIs() {
    for (String u :
        List.of(
            "http://127.0.0.1:3000/mcp",
            "https://mcp.example.com/v1/mcp",
            "http://[::1]:8080/",
            "http://h/mcp?tenant=acme&format=json&version=2")) {
      assertThat(UrlRedaction.of(URI.create(u))).isEqualTo(u);
    }
  }

  @Test
  void credentialLookingQueryValuesAreRedactedAndTheRestKept() {
    String q =
        "token=T&access_token=T&API-KEY=T&X-Amz-Signature=T&X-Amz-Credential=T&sig=T&sessionId=T"
            + "&password=T&client_secret=T&subscription-key=T&code=T&%74oken=T&tenant=acme;auth=T"
            + "&flag&empty=";
    String shown = UrlRedaction.of(URI.create("http://h:1/mcp?" + q.replace("T", MARKER)));
    assertThat(shown)
        .doesNotContain(MARKER)
        .isEqualTo("http://h:1/mcp?" + q.replace("=T", "=" + UrlRedaction.REDACTED));
  }

  @Test
  void userinfoAndFragmentNeverAppear() {
    URI u = URI.create("https://bob:" + MARKER + "@h/mcp?x=1#" + MARKER);
    assertThat(UrlRedaction.hasUserInfo(u)).isTrue();
    assertThat(UrlRedaction.of(u)).isEqualTo("https://h/mcp?x=1");
    assertThat(UrlRedaction.hasUserInfo(URI.create("http://h/mcp"))).isFalse();
    assertThat(UrlRedaction.hasUserInfo(URI.create("http://" + MARKER + "@h/mcp"))).isTrue();
  }

  @Test
  void textThatIsNotEvenAUrlIsShownWithoutWhatCouldBeCredentials() {
    assertThat(UrlRedaction.ofText("http://bob:pa ss" + MARKER + "@h/mcp?token=" + MARKER))
        .isEqualTo("http://<redacted>@h/mcp?token=<redacted>");
    assertThat(UrlRedaction.ofText("bob:" + MARKER + "@h/mcp")).isEqualTo("<redacted>");
    assertThat(UrlRedaction.ofText("http://h/a b\u0007")).isEqualTo("http://h/a b?");
    assertThat(UrlRedaction.ofText("http://h/" + "x".repeat(500))).hasSize(201);
  }

  @Test
  void aTargetThatIsAPlainNameIsKeptAndAUrlTargetLosesItsCredentials() {
    assertThat(UrlRedaction.ofTarget("billing-app")).isEqualTo("billing-app");
    assertThat(UrlRedaction.ofTarget("team@corp")).isEqualTo("team@corp");
    assertThat(UrlRedaction.ofTarget(null)).isNull();
    assertThat(UrlRedaction.ofTarget("http://h:1/mcp?token=" + MARKER + "&x=1"))
        .isEqualTo("http://h:1/mcp?token=<redacted>&x=1");
    assertThat(UrlRedaction.ofTarget("http://bob:" + MARKER + "@h/mcp")).isEqualTo("http://h/mcp");
    assertThat(UrlRedaction.ofTarget("http://bob:" + MARKER + "/x@h/mcp"))
        .isEqualTo("http://<redacted>@h/mcp");
  }
}
