package dev.tally.sidecar.app;

import dev.tally.core.config.ConfigSection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads {@code upstream.listToolsHeaderFile}: the headers the sidecar's own listing session sends
 * the upstream, typically a service credential mounted from a Secret. UTF-8 text, one {@code Name:
 * value} per line; blank lines and lines starting with {@code #} are ignored. Problems name the
 * file and the line, never a value.
 */
final class ListingHeaders {
  /** Headers the listing session sets itself, or that describe the connection, not the caller. */
  private static final Set<String> RESERVED =
      Set.of(
          "host",
          "content-length",
          "content-type",
          "accept",
          "connection",
          "transfer-encoding",
          "mcp-session-id",
          "mcp-protocol-version",
          "mcp-method",
          "mcp-name",
          "last-event-id");

  private ListingHeaders() {}

  static Map<String, String> read(ConfigSection section, String key, Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      section.problem(
          key, file + " cannot be read (expected: a readable file of 'Name: value' lines)");
      return Map.of();
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = file + ", line " + (i + 1) + ": ";
      int colon = line.indexOf(':');
      String name = colon <= 0 ? "" : line.substring(0, colon).strip();
      String value = colon < 0 ? "" : line.substring(colon + 1).strip();
      if (!isToken(name)) {
        section.problem(key, where + "no header name before ':' (expected: 'Name: value')");
      } else if (RESERVED.contains(name.toLowerCase(Locale.ROOT))) {
        section.problem(
            key, where + "header " + name + " is set by the sidecar (expected: another header)");
      } else if (value.isEmpty() || !isVisible(value)) {
        section.problem(
            key,
            where
                + "the value of "
                + name
                + " is empty or holds control characters (expected: visible characters)");
      } else {
        out.put(name, value);
      }
    }
    return out;
  }

  private static boolean isToken(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok =
          c >= 'a' && c <= 'z'
              || c >= 'A' && c <= 'Z'
              || c >= '0' && c <= '9'
              || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  private static boolean isVisible(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 && c != '\t' || c == 0x7f) {
        return false;
      }
    }
    return true;
  }
}
