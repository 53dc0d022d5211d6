package dev.tally.filter;

import dev.tally.core.console.ActionDesk;
import dev.tally.core.console.AdminReply;
import dev.tally.core.console.AdminToken;
import dev.tally.core.console.ConsolePage;
import dev.tally.core.console.ExecutionDesk;
import dev.tally.core.console.StrictBody;
import dev.tally.core.console.WriteDesk;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.Operator;
import dev.tally.core.mcp.Headers;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The admin API of a filter deployment (issue 18): the servlet an application maps beside its MCP
 * endpoint (for example at {@code /tally/*}) so that a person can confirm or cancel their pending
 * calls and the operator can work the write switch. The same API as the sidecar's admin port
 * (docs/admin-api.md), with every rule in core ({@link ActionDesk}, {@link WriteDesk}); this class
 * only moves the request in and the {@link AdminReply} out.
 *
 * <ul>
 *   <li>{@code GET /v1/actions}, {@code GET /v1/actions?recent=true}, {@code GET /v1/actions/{id}},
 *       {@code POST /v1/actions/{id}/confirm|cancel}: on the caller's own credential (resolved as
 *       its MCP calls are). Confirming runs the stored call at once, through the application's own
 *       MCP endpoint ({@code filter.selfUrl}), and answers with its recorded outcome.
 *   <li>{@code GET /v1/executions?state=&tool=&limit=&before=}, {@code GET /v1/executions/{id}},
 *       {@code POST /v1/executions/{id}/resolve} (core's {@link ExecutionDesk}), {@code GET|POST
 *       /v1/writes}, {@code POST /v1/actors/{actor}/revoke|restore}: the operator, with {@code
 *       Authorization: Bearer <admin token>}. Without a token configured these answer 403: unlike
 *       the sidecar's loopback-only admin port, this servlet shares the application's port, so even
 *       reads of executions need the token.
 * </ul>
 *
 * State changes need {@code Content-Type: application/json} (no form post can act) and a request
 * whose {@code Origin}, when sent, is this server's own. Registered by {@code web.xml} it finds the
 * filter its context published ({@link TallyFilter#FILTER_ATTRIBUTE}) and reads the admin token
 * from the file named by init-param {@value #TOKEN_FILE_PARAM}, else the environment variable
 * {@code TALLY_ADMIN_TOKEN}. It also serves the console page ({@code /console}, {@code
 * /console/actions/{id}}: a pending call's link when {@code confirmation.url} names this servlet's
 * address), the same page as the sidecar's, operator view included.
 */
public final class TallyAdminServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  /** The init-param naming the file that holds the admin token. */
  public static final String TOKEN_FILE_PARAM = "tokenFile";

  /** How long a request waits for the store (and a confirmed call's outcome). */
  static final long WAIT_MS = SelfClient.TIMEOUT.toMillis() + 10_000;

  private transient volatile TallyFilter filter;
  private transient volatile AdminToken token;
  private transient volatile ActionDesk actions;
  private transient volatile WriteDesk writes;
  private transient volatile ExecutionDesk executions;

  /** A servlet configured by its init-params and its context (for {@code web.xml}). */
  public TallyAdminServlet() {}

  /**
   * A servlet over {@code filter} for embedded servers; {@code adminToken} (at least {@value
   * AdminToken#MIN_CHARS} characters) guards the write switch, {@code null}: no write switch.
   */
  public TallyAdminServlet(TallyFilter filter, String adminToken) {
    this.filter = java.util.Objects.requireNonNull(filter, "filter");
    this.token = adminToken == null ? null : AdminToken.of(adminToken);
  }

  @Override
  public void init() throws ServletException {
    if (token == null) {
      try {
        String file = getInitParameter(TOKEN_FILE_PARAM);
        String t =
            file != null && !file.isBlank()
                ? Files.readString(Path.of(file.strip())).strip()
                : System.getenv("TALLY_ADMIN_TOKEN");
        token = t == null || t.isBlank() ? null : AdminToken.of(t);
      } catch (IOException | RuntimeException e) {
        throw new ServletException(
            "tally admin servlet: the admin token cannot be read ("
                + e.getClass().getSimpleName()
                + ")");
      }
    }
  }

  @Override
  protected void service(HttpServletRequest req, HttpServletResponse res)
      throws ServletException, IOException {
    TallyFilter f = filter();
    if (f == null) {
      send(res, AdminReply.error(503, "NOT_READY", "the Tally filter is not initialized"));
      return;
    }
    useBase(f.gate(), req);
    String path = req.getPathInfo() != null ? req.getPathInfo() : req.getServletPath();
    String[] p = path == null ? new String[0] : path.replaceFirst("^/", "").split("/", -1);
    String method = req.getMethod();
    boolean get = method.equals("GET") || method.equals("HEAD");
    if (!get && !sameOrigin(req)) {
      send(res, AdminReply.error(403, "CROSS_ORIGIN", "Origin: not this server"));
      return;
    }
    Headers headers = new ServletHeaders(req);
    if (p.length >= 1 && p[0].equals("console") && get) {
      console(req, res, p);
    } else if (p.length >= 2 && p[0].equals("v1") && p[1].equals("actions")) {
      actions(req, res, p, get, headers);
    } else if (p.length >= 2 && p[0].equals("v1") && p[1].equals("executions")) {
      if (!refusedOperator(req, res)) {
        executions(req, res, p, get);
      }
    } else if (p.length == 2 && p[0].equals("v1") && p[1].equals("writes")) {
      if (refusedOperator(req, res)) {
        return;
      }
      if (get) {
        send(res, writes.show());
      } else if (method.equals("POST")) {
        byte[] body = body(req, res);
        if (body != null) {
          send(res, writes.change(req.getContentType(), body));
        }
      } else {
        send(res, AdminReply.error(405, "METHOD_NOT_ALLOWED", "GET or POST /v1/writes"));
      }
    } else if (p.length == 4
        && p[0].equals("v1")
        && p[1].equals("actors")
        && method.equals("POST")) {
      if (!refusedOperator(req, res)) {
        send(res, await(writes.actor(p[2], p[3])));
      }
    } else {
      send(
          res,
          AdminReply.error(
              404, "NOT_FOUND", "no such endpoint: " + AdminReply.quote(path == null ? "" : path)));
    }
  }

  private void actions(
      HttpServletRequest req, HttpServletResponse res, String[] p, boolean get, Headers headers)
      throws IOException {
    if (p.length == 2 && get) {
      send(res, await(actions.list(headers, req.getParameter("recent") != null)));
    } else if (p.length == 3 && get) {
      send(res, await(actions.one(p[2], headers)));
    } else if (p.length == 4 && req.getMethod().equals("POST")) {
      var bad = actions.check(p[2], p[3], req.getContentType());
      if (bad.isPresent()) {
        send(res, bad.get());
        return;
      }
      byte[] body = body(req, res);
      if (body == null) {
        return;
      }
      SelfClient self = filter().self();
      send(res, await(actions.decide(p[2], p[3], req.getContentType(), body, headers, self::send)));
    } else {
      send(
          res,
          AdminReply.error(
              405,
              "METHOD_NOT_ALLOWED",
              "GET /v1/actions, GET /v1/actions/{id} or POST /v1/actions/{id}/{confirm|cancel}"));
    }
  }

  /** The operator's executions: core's {@link ExecutionDesk}, behind the admin token. */
  private void executions(HttpServletRequest req, HttpServletResponse res, String[] p, boolean get)
      throws IOException {
    if (p.length == 2 && get) {
      send(res, await(executions.list(req::getParameter)));
    } else if (p.length == 3 && get) {
      send(res, await(executions.one(p[2])));
    } else if (p.length == 4 && req.getMethod().equals("POST")) {
      var bad = executions.check(p[2], p[3], req.getContentType());
      if (bad.isPresent()) {
        send(res, bad.get());
        return;
      }
      byte[] body = body(req, res);
      if (body != null) {
        send(res, await(executions.act(p[2], p[3], req.getContentType(), body)));
      }
    } else {
      send(res, ExecutionDesk.methodNotAllowed());
    }
  }

  /**
   * The console (core's {@link ConsolePage}) under this servlet's mapping: {@code console}, {@code
   * console/actions/{id}} (a pending call's {@code confirmUrl}), its script and style.
   */
  private static void console(HttpServletRequest req, HttpServletResponse res, String[] p)
      throws IOException {
    ConsolePage.Asset a;
    if (p.length == 1 || p.length == 3 && p[1].equals("actions")) {
      String mapped = req.getPathInfo() != null ? req.getServletPath() : "";
      a = ConsolePage.page(req.getContextPath() + mapped);
    } else if (p.length == 2 && p[1].equals("console.js")) {
      a = ConsolePage.script();
    } else if (p.length == 2 && p[1].equals("console.css")) {
      a = ConsolePage.style();
    } else {
      send(res, AdminReply.error(404, "NOT_FOUND", "no such console page"));
      return;
    }
    ConsolePage.HEADERS.forEach(res::setHeader);
    res.setStatus(200);
    res.setContentType(a.contentType());
    res.setContentLength(a.bytes().length);
    res.getOutputStream().write(a.bytes());
  }

  private TallyFilter filter() {
    TallyFilter f = filter;
    if (f == null) {
      Object o = getServletContext().getAttribute(TallyFilter.FILTER_ATTRIBUTE);
      if (o instanceof TallyFilter t) {
        filter = f = t;
      }
    }
    if (f != null && actions == null) {
      Gate g = f.gate();
      // actions last: a request that sees it set finds the other desks set too.
      writes = WriteDesk.of(g.writes().writeSwitch(), g.confirmations());
      executions =
          ExecutionDesk.of(g.store(), Operator.create(g.store(), f.clock()), f.resultRetention());
      actions = ActionDesk.of(g.confirmations(), g.store(), f.clock());
    }
    return f;
  }

  /**
   * Without {@code confirmation.url}, links point under this servlet's own address as the first
   * admin request names it (set {@code confirmation.url} so that they are right from the start).
   */
  private static void useBase(Gate g, HttpServletRequest req) {
    if (g.confirmations().config().url() != null) {
      return;
    }
    String host = req.getHeader("Host");
    if (host == null || host.isBlank()) {
      return;
    }
    String mapped = req.getPathInfo() != null ? req.getServletPath() : "";
    g.confirmations().useBase(req.getScheme() + "://" + host + req.getContextPath() + mapped);
  }

  /** 401/403 unless the request carries the admin token; true when it answered. */
  private boolean refusedOperator(HttpServletRequest req, HttpServletResponse res)
      throws IOException {
    AdminToken t = token;
    if (t == null) {
      send(
          res,
          AdminReply.error(
              403,
              "TOKEN_NOT_CONFIGURED",
              "the operator's endpoints need the admin token, and this servlet has none: set"
                  + " init-param "
                  + TOKEN_FILE_PARAM
                  + " or TALLY_ADMIN_TOKEN (at least "
                  + AdminToken.MIN_CHARS
                  + " characters)"));
      return true;
    }
    if (!t.matches(req.getHeader("Authorization"))) {
      res.setHeader("WWW-Authenticate", "Bearer");
      send(res, AdminReply.error(401, "UNAUTHORIZED", "the admin bearer token is required"));
      return true;
    }
    return false;
  }

  /** An {@code Origin} header, when sent, must name the host the request was sent to. */
  private static boolean sameOrigin(HttpServletRequest req) {
    String origin = req.getHeader("Origin");
    if (origin == null) {
      return true;
    }
    String host = req.getHeader("Host");
    try {
      URI o = URI.create(origin);
      return host != null
          && o.getRawAuthority() != null
          && o.getRawAuthority().equalsIgnoreCase(host);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** The body, at most {@link StrictBody#MAX_BODY} bytes; null when it answered 413. */
  private static byte[] body(HttpServletRequest req, HttpServletResponse res) throws IOException {
    byte[] b =
        FilterEngine.readBody(
            req.getInputStream(), StrictBody.MAX_BODY, req.getContentLengthLong());
    if (b == null) {
      res.setHeader("Connection", "close");
      send(
          res,
          AdminReply.error(
              413, "PAYLOAD_TOO_LARGE", "body over " + StrictBody.MAX_BODY + " bytes"));
    }
    return b;
  }

  private static AdminReply await(CompletionStage<AdminReply> stage) {
    try {
      return stage.toCompletableFuture().get(WAIT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return AdminReply.storeDown();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      return AdminReply.storeDown();
    }
  }

  private static void send(HttpServletResponse res, AdminReply reply) throws IOException {
    if (res.isCommitted()) {
      return;
    }
    res.setStatus(reply.status());
    reply.headers().forEach(res::setHeader);
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setContentType("application/json");
    byte[] b = reply.bytes();
    res.setContentLength(b.length);
    res.getOutputStream().write(b);
  }
}
