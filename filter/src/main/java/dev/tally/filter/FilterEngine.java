package dev.tally.filter;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.gate.Decision;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.InFlight;
import dev.tally.core.gate.TallyCode;
import dev.tally.core.gate.TallyError;
import dev.tally.core.gate.ToolCall;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.JsonRpcScan;
import dev.tally.core.mcp.McpRequestHeaders;
import dev.tally.core.mcp.RpcResponseWatcher;
import dev.tally.core.mcp.ToolParamHeaders;
import dev.tally.core.mcp.ToolResults;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The filter's request path (ARCHITECTURE.md §6 over the servlet API): routes everything that is
 * not a {@code tools/call} untouched, asks the {@link Gate} about every {@code tools/call}, and
 * carries out its {@link Decision}.
 */
final class FilterEngine {
  /** Request attribute holding the execution id of a dispatched call. */
  static final String EXECUTION_ID_ATTRIBUTE = "dev.tally.executionId";

  /** Slack over a contract's attach wait before the filter stops waiting for the gate itself. */
  private static final Duration GATE_SLACK = Duration.ofSeconds(5);

  private static final ObjectMapper STRICT =
      JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private final Gate gate;
  private final FilterSettings settings;
  private final ToolParamHeaders paramHeaders;

  FilterEngine(Gate gate, FilterSettings settings, ToolParamHeaders paramHeaders) {
    this.gate = gate;
    this.settings = settings;
    this.paramHeaders = paramHeaders;
  }

  Gate gate() {
    return gate;
  }

  void handle(HttpServletRequest req, HttpServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    if (!"POST".equals(req.getMethod())) {
      chain.doFilter(req, res);
      return;
    }
    if (!isJson(req.getContentType())) {
      Answers.refuse(
          res,
          null,
          TallyError.of(
              TallyError.Code.UNSUPPORTED_MEDIA_TYPE,
              "Content-Type: expected application/json for a POST to the MCP endpoint"));
      return;
    }
    long declared = req.getContentLengthLong();
    if (declared > settings.maxRequestBytes()) {
      tooLarge(req, res, declared);
      return;
    }
    byte[] body = readBody(req.getInputStream(), settings.maxRequestBytes(), declared);
    if (body == null) {
      tooLarge(req, res, declared);
      return;
    }
    JsonRpcScan scan = JsonRpcScan.scan(body);
    Headers headers = new ServletHeaders(req);
    switch (scan.kind()) {
      case MALFORMED -> {
        Answers.refuse(
            res,
            null,
            TallyError.of(TallyError.Code.PARSE_ERROR, "request body: " + scan.problem()));
        return;
      }
      case BATCH -> {
        Answers.refuse(
            res,
            null,
            TallyError.of(
                TallyError.Code.INVALID_REQUEST,
                "request body: JSON-RPC batches are not accepted (send one message per POST)"));
        return;
      }
      case INVALID -> {
        Answers.refuse(
            res,
            null,
            TallyError.of(TallyError.Code.INVALID_REQUEST, "request body: " + scan.problem()));
        return;
      }
      case RESPONSE -> {
        chain.doFilter(new BufferedRequest(req, body).asyncWith(res, null), res);
        return;
      }
      case REQUEST -> {
        // handled below
      }
    }
    var methodMismatch = McpRequestHeaders.checkMethod(headers, scan.method());
    if (methodMismatch.isPresent()) {
      Answers.refuse(
          res, null, TallyError.of(TallyError.Code.HEADER_MISMATCH, methodMismatch.get()));
      return;
    }
    if (JsonRpcScan.TOOLS_LIST.equals(scan.method())) {
      passAndLearn(req, res, chain, body);
      return;
    }
    if (!scan.isToolsCall() || isReadOnly(scan.name())) {
      // Read-only tools pass through without a JSON tree: the gate would record nothing.
      chain.doFilter(new BufferedRequest(req, body).asyncWith(res, null), res);
      return;
    }
    toolsCall(req, res, chain, body, headers);
  }

  private void toolsCall(
      HttpServletRequest req,
      HttpServletResponse res,
      FilterChain chain,
      byte[] body,
      Headers headers)
      throws IOException, ServletException {
    JsonNode tree;
    try {
      tree = STRICT.readTree(body);
    } catch (IOException e) {
      String why =
          e.getMessage() != null && e.getMessage().startsWith("Duplicate field")
              ? "request body: an object has a duplicate member"
              : "request body: not valid JSON";
      Answers.refuse(res, null, TallyError.of(TallyError.Code.PARSE_ERROR, why));
      return;
    }
    JsonNode id = tree.get("id");
    ToolCallShape shape = ToolCallShape.of(tree);
    if (shape.problem() != null) {
      Answers.refuse(res, validId(id) ? id : null, shape.problem());
      return;
    }
    var mismatch = McpRequestHeaders.check(headers, tree, paramHeaders.forTool(shape.tool()));
    if (mismatch.isPresent()) {
      Answers.refuse(res, id, TallyError.of(TallyError.Code.HEADER_MISMATCH, mismatch.get()));
      return;
    }
    ToolCall call =
        new ToolCall(
            shape.tool(),
            shape.arguments(),
            shape.meta(),
            shape.continuation(),
            headers,
            settings.target());
    Decision decision = await(gate.admit(call), GATE_SLACK);
    act(decision, req, res, chain, body, tree, id);
  }

  private void act(
      Decision decision,
      HttpServletRequest req,
      HttpServletResponse res,
      FilterChain chain,
      byte[] body,
      JsonNode tree,
      JsonNode id)
      throws IOException, ServletException {
    if (decision instanceof Decision.PassThrough) {
      chain.doFilter(new BufferedRequest(req, body).asyncWith(res, null), res);
    } else if (decision instanceof Decision.Dispatch d) {
      dispatch(d.inFlight(), req, res, chain, tree, id);
    } else if (decision instanceof Decision.Replay r) {
      Answers.result(
          req, res, settings.framing(), ToolResults.replay(id, r.execution(), r.result()));
      // Written and flushed without an error: a result whose first delivery failed has now arrived.
      gate.replayDelivered(r.execution());
    } else if (decision instanceof Decision.Respond r) {
      Answers.result(
          req, res, settings.framing(), ToolResults.respond(id, r.code(), r.execution()));
    } else if (decision instanceof Decision.Refuse r) {
      Answers.refuse(res, id, r.error());
    } else if (decision instanceof Decision.Attach a) {
      Duration wait = gate.contracts().resolve(a.execution().tool()).attachWait().plus(GATE_SLACK);
      Decision settled;
      try {
        settled = a.settled().toCompletableFuture().get(wait.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        settled = new Decision.Respond(TallyCode.IDEMPOTENCY_IN_PROGRESS, a.execution());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        settled = new Decision.Respond(TallyCode.IDEMPOTENCY_IN_PROGRESS, a.execution());
      } catch (ExecutionException e) {
        settled = storeUnavailable();
      }
      act(settled, req, res, chain, body, tree, id);
    }
  }

  private void dispatch(
      InFlight inFlight,
      HttpServletRequest req,
      HttpServletResponse res,
      FilterChain chain,
      JsonNode tree,
      JsonNode id)
      throws IOException, ServletException {
    String executionId = inFlight.id().value();
    ObjectNode params = (ObjectNode) tree.get("params");
    JsonNode meta = params.get("_meta");
    ObjectNode m = meta instanceof ObjectNode o ? o : params.putObject("_meta");
    m.put(ToolResults.EXECUTION_ID_META, executionId);
    byte[] rewritten = STRICT.writeValueAsBytes(tree);

    DispatchObserver observer = new DispatchObserver(inFlight, id, settings.maxResponseBytes());
    ObservedResponse observed = new ObservedResponse(res, observer);
    observer.watch(observed);
    boolean[] async = new boolean[1];
    BufferedRequest wrapped =
        new BufferedRequest(req, rewritten, gate.options().idempotencyHeader(), executionId)
            .asyncWith(
                observed,
                ac -> {
                  async[0] = true;
                  ac.addListener(observer);
                });
    req.setAttribute(EXECUTION_ID_ATTRIBUTE, executionId);
    try {
      chain.doFilter(wrapped, observed);
    } catch (IOException | ServletException | RuntimeException | Error e) {
      observer.finish(e, false);
      throw e;
    }
    if (!async[0]) {
      if (observer.outcomeSeen() || !res.isCommitted()) {
        try {
          observed.flushBuffer();
        } catch (IOException e) {
          // recorded by the observer as a failed flush
        }
      }
      observer.finish(null, false);
    }
  }

  private void passAndLearn(
      HttpServletRequest req, HttpServletResponse res, FilterChain chain, byte[] body)
      throws IOException, ServletException {
    LearningTap tap =
        new LearningTap(
            settings.maxResponseBytes(), requestId(body), gate.contracts(), paramHeaders);
    ObservedResponse observed = new ObservedResponse(res, tap);
    tap.response = observed;
    boolean[] async = new boolean[1];
    BufferedRequest wrapped =
        new BufferedRequest(req, body)
            .asyncWith(
                observed,
                ac -> {
                  async[0] = true;
                  ac.addListener(tap);
                });
    chain.doFilter(wrapped, observed);
    if (!async[0]) {
      tap.end();
    }
  }

  private static JsonNode requestId(byte[] body) {
    try {
      JsonNode n = STRICT.readTree(body);
      JsonNode id = n == null ? null : n.get("id");
      return validId(id) ? id : null;
    } catch (IOException e) {
      return null;
    }
  }

  private Decision await(CompletionStage<Decision> stage, Duration bound) {
    try {
      return stage.toCompletableFuture().get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return storeUnavailable();
    } catch (ExecutionException | TimeoutException e) {
      return storeUnavailable();
    }
  }

  private static Decision storeUnavailable() {
    return new Decision.Refuse(
        TallyError.of(
            TallyError.Code.STORE_UNAVAILABLE,
            "the execution store cannot record this call now; nothing was sent, retry later"));
  }

  /**
   * Answers 413, then reads and drops the rest of the body (up to {@link #SWALLOW_BYTES}): a server
   * that closes the connection while the client is still sending makes the client fail with a
   * broken pipe or a reset instead of reading the answer. A body declared larger than that is not
   * read; the answer then says {@code Connection: close}.
   */
  private void tooLarge(HttpServletRequest req, HttpServletResponse res, long declared)
      throws IOException {
    boolean swallow = declared <= SWALLOW_BYTES;
    if (!swallow) {
      res.setHeader("Connection", "close");
    }
    refuseTooLarge(res);
    if (!swallow) {
      return;
    }
    try {
      res.flushBuffer();
      InputStream in = req.getInputStream();
      byte[] scratch = new byte[8192];
      long left = SWALLOW_BYTES;
      int n;
      while (left > 0 && (n = in.read(scratch, 0, (int) Math.min(scratch.length, left))) >= 0) {
        left -= n;
      }
    } catch (IOException e) {
      // The client went away: the answer was sent, nothing else to do.
    }
  }

  private void refuseTooLarge(HttpServletResponse res) throws IOException {
    Answers.refuse(
        res,
        null,
        TallyError.of(
            TallyError.Code.PAYLOAD_TOO_LARGE,
            "request body: over "
                + settings.maxRequestBytes()
                + " bytes ("
                + "limits.maxRequestBytes"
                + ")"));
  }

  private boolean isReadOnly(String tool) {
    return tool != null && gate.contracts().resolve(tool).isReadOnly();
  }

  /** Most bytes of a refused body read and dropped so that its client can read the 413. */
  static final long SWALLOW_BYTES = 8L << 20;

  static boolean validId(JsonNode id) {
    return id != null && (id.isTextual() || id.isNumber());
  }

  static boolean isJson(String contentType) {
    String mt = RpcResponseWatcher.mediaType(contentType);
    return mt.equals("application/json");
  }

  /**
   * Reads at most {@code max} bytes; {@code null} if the body is longer. {@code declared} (the
   * {@code Content-Length}, or -1) sizes the buffer so a well-behaved request is read without
   * copying.
   */
  static byte[] readBody(InputStream in, int max, long declared) throws IOException {
    int initial = declared >= 0 ? (int) Math.min(declared, max) + 1 : Math.min(max + 1, 1024);
    byte[] buf = new byte[Math.max(initial, 1)];
    int n = 0;
    while (true) {
      if (n == buf.length) {
        if (buf.length > max) {
          return null;
        }
        buf = Arrays.copyOf(buf, (int) Math.min(max + 1L, buf.length * 2L));
      }
      int r = in.read(buf, n, buf.length - n);
      if (r < 0) {
        return n == buf.length ? buf : Arrays.copyOf(buf, n);
      }
      n += r;
      if (n > max) {
        return null;
      }
    }
  }
}
