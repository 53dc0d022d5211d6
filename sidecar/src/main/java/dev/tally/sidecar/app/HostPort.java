package dev.tally.sidecar.app;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** A listen address {@code HOST:PORT} ({@code [::1]:PORT} for IPv6). */
public record HostPort(String host, int port) {
  public HostPort {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(host + ":" + port + " (expected: a port 0-65535)");
    }
  }

  /** Parses {@code HOST:PORT}; returns {@code null} if malformed (callers report the key). */
  public static HostPort parse(String s) {
    if (s == null) {
      return null;
    }
    int colon = s.lastIndexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      return null;
    }
    String host = s.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try {
      int port = Integer.parseInt(s.substring(colon + 1));
      return port < 0 || port > 65535 ? null : new HostPort(host, port);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Whether the host is a loopback address or name (admin endpoints need no token there). */
  public boolean isLoopback() {
    if (host.equals("localhost")) {
      return true;
    }
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }
}
