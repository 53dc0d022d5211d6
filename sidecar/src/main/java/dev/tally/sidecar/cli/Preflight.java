package dev.tally.sidecar.cli;

import dev.tally.core.config.ConfigException;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.fingerprint.KeyException;
import dev.tally.core.fingerprint.KeyFiles;
import dev.tally.sidecar.app.HostPort;
import dev.tally.sidecar.app.SidecarSettings;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything {@code tally serve} checks before it touches the disk or the network: the file against
 * {@code config/tally.schema.json} ({@link ConfigSchema}), the core's and the sidecar's rules with
 * the environment and flags applied, and that the configured HMAC key file can be read. All
 * problems are reported together in one {@link ConfigException}. Reads files; writes nothing.
 */
final class Preflight {
  private Preflight() {}

  /** A configuration that passed every check ({@code settings} null when only the core was). */
  record Checked(TallyConfig config, SidecarSettings settings) {}

  /**
   * Checks {@code file} (null: no file) with {@code overrides}; {@code sidecar} also checks the
   * sidecar's sections (for a file the servlet filter reads, pass false).
   *
   * @throws ConfigException naming every problem found
   */
  static Checked check(Path file, ConfigOverrides overrides, boolean sidecar) {
    String source = file == null ? "configuration" : "config file " + file;
    List<String> problems = new ArrayList<>();
    TallyConfig config = null;
    SidecarSettings settings = null;
    try {
      config = TallyConfig.load(file, overrides);
    } catch (ConfigException e) {
      problems.addAll(e.problems());
    }
    if (config != null && sidecar) {
      try {
        settings = SidecarSettings.from(config, overrides);
      } catch (ConfigException e) {
        problems.addAll(e.problems());
      }
    }
    if (config != null && config.hmac().keyFile() != null) {
      Path keys = config.hmac().keyFile();
      try {
        KeyFiles.load(keys);
      } catch (KeyException e) {
        problems.add(
            "hmac.keyFile: "
                + e.getMessage()
                + (Files.exists(keys) ? "" : " (make one with: tally key generate " + keys + ")"));
      }
    }
    for (String p : schemaProblems(file)) {
      if (!covered(p, problems)) {
        problems.add(p);
      }
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(source, problems);
    }
    return new Checked(config, settings);
  }

  private static List<String> schemaProblems(Path file) {
    if (file == null) {
      return List.of();
    }
    String text;
    try {
      if (Files.size(file) > TallyConfig.MAX_FILE_BYTES) {
        return List.of(); // the core reports the size
      }
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      return List.of(); // unreadable or not UTF-8: the core reports it
    }
    return ConfigSchema.bundled().problems(text);
  }

  /**
   * Whether a schema problem is about a key the core's rules already reported (theirs say more:
   * "did you mean", the override that set it), or one inside it, or one containing it.
   */
  private static boolean covered(String schemaProblem, List<String> problems) {
    String path = pathOf(schemaProblem);
    for (String p : problems) {
      String other = pathOf(p);
      if (other.equals(path) || path.startsWith(other + ".") || other.startsWith(path + ".")) {
        return true;
      }
    }
    return false;
  }

  private static String pathOf(String problem) {
    int end = problem.length();
    int colon = problem.indexOf(": ");
    int paren = problem.indexOf(" (");
    if (colon >= 0) {
      end = colon;
    }
    if (paren >= 0 && paren < end) {
      end = paren;
    }
    // tools.x.fingerprint.include[1] is inside tools.x.fingerprint.include
    return problem.substring(0, end).replaceAll("\\[\\d+\\]", "");
  }

  /**
   * Whether the two listen addresses can be bound now: null when they can, else one line naming the
   * key, the address and why not. Binds and closes a plain socket on each (port 0 is skipped); the
   * listeners proper bind moments later, so a port taken in between is still reported by the
   * start-up itself.
   */
  static String bindProblem(SidecarSettings settings) {
    HostPort mcp = new HostPort(settings.sidecar().host(), settings.sidecar().port());
    HostPort admin = settings.admin().listen();
    if (mcp.port() != 0 && mcp.port() == admin.port()) {
      return "admin.listen: "
          + admin
          + " uses the port of sidecar.listen "
          + mcp
          + " (expected: two different ports)";
    }
    String p = bindProblem("sidecar.listen", "--listen", mcp);
    return p != null ? p : bindProblem("admin.listen", "--admin", admin);
  }

  private static String bindProblem(String key, String flag, HostPort at) {
    if (at.port() == 0) {
      return null;
    }
    InetSocketAddress address = new InetSocketAddress(at.host(), at.port());
    if (address.isUnresolved()) {
      return key + ": " + at + " (expected: a host name that resolves, or an IP address)";
    }
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(address);
      return null;
    } catch (BindException e) {
      String why = e.getMessage() == null ? "cannot bind" : e.getMessage();
      return key
          + ": cannot listen on "
          + at
          + ": "
          + why
          + (why.contains("in use") ? " (another process holds port " + at.port() + ")" : "")
          + " (expected: a free HOST:PORT; flag "
          + flag
          + ")";
    } catch (IOException e) {
      return key + ": cannot listen on " + at + ": " + e.getClass().getSimpleName();
    }
  }
}
