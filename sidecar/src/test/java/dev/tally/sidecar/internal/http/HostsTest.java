package dev.tally.sidecar.internal.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class HostsTest {

  @Test
  void aLoopbackListenerAcceptsLoopbackNamesOnAnyPortAndNothingElse() {
    Hosts h = Hosts.forListener("127.0.0.1", List.of());
    assertThat(h.isOn()).isTrue();
    assertThat(h.allowsHost("127.0.0.1:8080")).isTrue();
    assertThat(h.allowsHost("localhost")).isTrue();
    assertThat(h.allowsHost("LocalHost.:9090")).isTrue();
    assertThat(h.allowsHost("[::1]:8080")).isTrue();
    assertThat(h.allowsHost("[::1]")).isTrue();
    assertThat(h.allowsHost(" localhost:1 ")).isTrue();

    assertThat(h.allowsHost("evil.example.com")).isFalse();
    assertThat(h.allowsHost("evil.example.com:8080")).isFalse();
    assertThat(h.allowsHost("localhost.evil.example.com")).isFalse();
    assertThat(h.allowsHost("127.0.0.1.nip.io:8080")).isFalse();
    assertThat(h.allowsHost("")).isFalse();
    assertThat(h.allowsHost(null)).isFalse();
  }

  @Test
  void theBoundLoopbackAddressAndConfiguredNamesPassToo() {
    Hosts h = Hosts.forListener("127.0.0.2", List.of("MCP.example.com", "::1", "10.0.0.7"));
    assertThat(h.allowsHost("127.0.0.2:8080")).isTrue();
    assertThat(h.allowsHost("mcp.example.com:443")).isTrue();
    assertThat(h.allowsHost("[::1]:80")).isTrue();
    assertThat(h.allowsHost("10.0.0.7:8080")).isTrue();
    assertThat(h.allowsHost("127.0.0.3:8080")).isFalse();
    assertThat(h.allowsHost("other.example.com")).isFalse();

    assertThat(Hosts.forListener("localhost", List.of()).allowsHost("127.0.0.1:1")).isTrue();
    assertThat(Hosts.forListener("::1", List.of()).allowsHost("evil.example.com")).isFalse();
  }

  @Test
  void beyondLoopbackNothingIsCheckedUnlessNamesAreGiven() {
    Hosts open = Hosts.forListener("0.0.0.0", List.of());
    assertThat(open.isOn()).isFalse();
    assertThat(open.allowsHost("anything.example.com:1")).isTrue();
    assertThat(open.allowsHost(null)).isTrue();

    Hosts named = Hosts.forListener("0.0.0.0", List.of("mcp.internal"));
    assertThat(named.isOn()).isTrue();
    assertThat(named.allowsHost("mcp.internal:8080")).isTrue();
    assertThat(named.allowsHost("localhost:8080")).isFalse();
    assertThat(named.allowsHost(null)).isFalse();
  }

  @Test
  void aStarTurnsTheCheckOffEvenOnLoopback() {
    Hosts any = Hosts.forListener("127.0.0.1", List.of("*"));
    assertThat(any.isOn()).isFalse();
    assertThat(any.allowsHost("evil.example.com")).isTrue();
  }

  @Test
  void configuredNamesMustBeBareHostNames() {
    assertThat(Hosts.isValidName("mcp.example.com")).isTrue();
    assertThat(Hosts.isValidName("*")).isTrue();
    assertThat(Hosts.isValidName("::1")).isTrue();
    assertThat(Hosts.isValidName("[::1]")).isTrue();
    assertThat(Hosts.isValidName("mcp.example.com:8080")).isFalse();
    assertThat(Hosts.isValidName("[::1]:8080")).isFalse();
    assertThat(Hosts.isValidName("https://mcp.example.com")).isFalse();
    assertThat(Hosts.isValidName("mcp.example.com/mcp")).isFalse();
    assertThat(Hosts.isValidName(" ")).isFalse();
    assertThat(Hosts.isValidName(null)).isFalse();
  }
}
