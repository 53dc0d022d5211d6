package dev.tally.core.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The console's static files (issue 18): one page with its script and style, the same bytes for
 * both adapters' shells (the sidecar's admin port serves them at {@code /console}, the filter's
 * {@code TallyAdminServlet} under its own mapping). The page holds no data and no secret; the
 * script finds its API beside the path it was loaded from. Every response carries {@link #HEADERS}.
 */
public final class ConsolePage {
  /** The Content-Security-Policy of every console response. */
  public static final String CSP =
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
          + " img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  /** The headers of every console response. */
  public static final Map<String, String> HEADERS =
      Map.of(
          "Cache-Control", "no-store",
          "Content-Security-Policy", CSP,
          "X-Content-Type-Options", "nosniff",
          "X-Frame-Options", "DENY",
          "Referrer-Policy", "no-referrer");

  /** One file: its media type and bytes. */
  public record Asset(String contentType, byte[] bytes) {}

  private static final String HTML = new String(load("console.html"), StandardCharsets.UTF_8);
  private static final Asset SCRIPT =
      new Asset("text/javascript; charset=utf-8", load("console.js"));
  private static final Asset STYLE = new Asset("text/css; charset=utf-8", load("console.css"));

  private ConsolePage() {}

  /**
   * The page for a console mounted at {@code base} ({@code ""} at the root, else a path such as
   * {@code /tally}): its script and style are linked under that path.
   */
  public static Asset page(String base) {
    String html = base.isEmpty() ? HTML : HTML.replace("\"/console/", "\"" + base + "/console/");
    return new Asset("text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8));
  }

  public static Asset script() {
    return SCRIPT;
  }

  public static Asset style() {
    return STYLE;
  }

  private static byte[] load(String name) {
    try (InputStream in =
        ConsolePage.class.getResourceAsStream("/dev/tally/core/console/" + name)) {
      if (in == null) {
        throw new IllegalStateException("console resource missing: " + name);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
