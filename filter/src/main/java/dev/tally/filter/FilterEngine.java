package dev.tally.filter;

import dev.tally.core.call.CallIntake;
import dev.tally.core.call.CallReply;
import dev.tally.core.call.DispatchRecorder;
import dev.tally.core.mcp.BatchSplitter;
import dev.tally.core.mcp.BodyClassifier;
import dev.tally.core.mcp.BodyScan;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.McpNames;
import dev.tally.core.mcp.MediaTypes;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.mcp.WireJson;
import dev.tally.core.observe.McpOperation;
import dev.tally.core.observe.RequestSpan;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The filter's request path: a thin servlet shell over core's one pipeline. A POST body is
 * classified ({@link BodyClassifier}), every {@code tools/call} goes to {@link CallIntake}, and the
 * {@link CallReply} it returns is carried out here; every rule lives in core, so the sidecar
 * decides the same input the same way (core's adapter parity suite checks it).
 *
 * <p>The path of one side-effecting call: {@link TallyFilter#doFilter} → {@code handle} here → core
 * ({@code BodyClassifier}, {@code CallIntake}: {@code ToolCallReader}, {@code HeaderRules}, the
 * gate, {@code DecisionWalk}) → back here with a {@code CallReply.Dispatch} → the application's
 * servlet through {@link BufferedRequest} / {@link ObservedResponse} → {@link DispatchObserver} →
 * core's {@code DispatchRecorder} → the store.
 */
final class FilterEngine {
  /** Request attribute holding the execution id of a dispatched call. */
  static final String EXECUTION_ID_ATTRIBUTE = "dev.tally.executionId";

  /** Slack over a tool's attach wait before the filter stops waiting for core. */
  private static final Duration WAIT_SLACK = Duration.ofSeconds(10);

  /** Most bytes of a refused body read and dropped so that its client can read the 413. */
  static final long SWALLOW_BYTES = 8L << 20;

  private static final TallyError NOT_DECIDED =
      TallyError.of(
          TallyError.Code.STORE_UNAVAILABLE,
          "the execution store cannot record this call now; nothing was sent, retry later");

  private final CallIntake intake;
  private final BodyClassifier classifier;
  private final FilterSettings settings;
  private final String idempotencyHeader;
  private final SelfClient self;
  private final StandaloneStreams streams = new StandaloneStreams();

  FilterEngine(
      CallIntake intake,
      WireJson json,
      FilterSettings settings,
      String idempotencyHeader,
      SelfClient self) {
    this.intake = intake;
    this.classifier = BodyClassifier.create(json);
    this.settings = settings;
    this.idempotencyHeader = idempotencyHeader;
    this.self = self;
  }

  SelfClient self() {
    return self;
  }

  /** The application's live standalone event streams, which Tally can add events to. */
  StandaloneStreams streams() {
    return streams;
  }

  CallIntake intake() {
    return intake;
  }

  void handle(HttpServletRequest req, HttpServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    if ("GET".equals(req.getMethod())) {
      streams.serve(req, res, chain);
      return;
    }
    if (!"POST".equals(req.getMethod())) {
      chain.doFilter(req, res);
      return;
    }
    self.learn(req);
    if (self.claim(req.getHeader(SelfClient.OWN_HEADER))) {
      // Tally's own request (a confirmed call already recorded as dispatched, a status lookup).
      String key = req.getHeader(idempotencyHeader);
      if (key != null) {
        req.setAttribute(EXECUTION_ID_ATTRIBUTE, key);
      }
      chain.doFilter(req, res);
      return;
    }
    if (!MediaTypes.isJson(req.getContentType())) {
      refuse(
          res,
          TallyError.of(
              TallyError.Code.UNSUPPORTED_MEDIA_TYPE,
              "POST requires Content-Type: application/json"));
      return;
    }
    if (!MediaTypes.acceptsBoth(req.getHeader(McpNames.HeaderNames.ACCEPT))) {
      refuse(
          res,
          TallyError.of(
              TallyError.Code.NOT_ACCEPTABLE,
              "POST requires an Accept header listing application/json and text/event-stream"));
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
    BodyScan scan = classifier.classify(body);
    Headers headers = new ServletHeaders(req);
    switch (scan.shape()) {
      case REFUSED -> Answers.refuse(res, CallReply.Refusal.of(scan.id(), scan.problem()));
      case BATCH -> {
        TallyError era =
            BatchSplitter.refusalFor(headers.get(McpNames.HeaderNames.PROTOCOL_VERSION));
        refuse(
            res,
            era != null
                ? era
                : TallyError.of(
                    TallyError.Code.INVALID_REQUEST,
                    "request body: JSON-RPC batches are not accepted by the servlet filter (send"
                        + " one message per POST)"));
      }
      case MESSAGE -> traced(scan, body, headers, req, res, chain);
    }
  }

  /**
   * Runs one MCP message inside its request span, which ends when the answer is complete: at once
   * for a synchronous servlet, when the async context completes otherwise.
   */
  private void traced(
      BodyScan scan,
      byte[] body,
      Headers headers,
      HttpServletRequest req,
      HttpServletResponse res,
      FilterChain chain)
      throws IOException, ServletException {
    RequestSpan span =
        intake.admission().telemetry().request(McpOperation.of(scan, headers), headers);
    boolean ok = false;
    try {
      message(scan, body, headers, req, res, chain, span);
      ok = true;
    } finally {
      if (!ok) {
        span.error("exception");
      }
      if (ok && req.isAsyncStarted()) {
        req.getAsyncContext().addListener(new SpanEnd(span, res));
      } else {
        span.end(res.getStatus());
      }
    }
  }

  private void message(
      BodyScan scan,
      byte[] body,
      Headers headers,
      HttpServletRequest req,
      HttpServletResponse res,
      FilterChain chain,
      RequestSpan span)
      throws IOException, ServletException {
    if (scan.isToolsCall()) {
      toolsCall(scan, body, headers, req, res, chain, span);
      return;
    }
    var refused = intake.check(scan, headers);
    if (refused.isPresent()) {
      span.error(refused.get().error().code().name());
      Answers.refuse(res, refused.get());
      return;
    }
    if (scan.isRequestFor(McpNames.Methods.TOOLS_LIST)) {
      passAndLearn(req, res, chain, body, scan, headers);
      return;
    }
    chain.doFilter(new BufferedRequest(req, body).asyncWith(res, null), res);
  }

  private void toolsCall(
      BodyScan scan,
      byte[] body,
      Headers headers,
      HttpServletRequest req,
      HttpServletResponse res,
      FilterChain chain,
      RequestSpan span)
      throws IOException, ServletException {
    Duration bound =
        scan.name() == null
            ? WAIT_SLACK
            : intake.admission().contracts().resolve(scan.name()).attachWait().plus(WAIT_SLACK);
    CallReply reply =
        await(intake.admit(scan, body, 0, body.length, headers, span), bound, scan, span);
    if (reply instanceof CallReply.Forward) {
      chain.doFilter(new BufferedRequest(req, body).asyncWith(res, null), res);
    } else if (reply instanceof CallReply.Dispatch d) {
      dispatch(d, req, res, chain);
    } else if (reply instanceof CallReply.Answer a) {
      a.delivery().written(Answers.result(req, res, settings.framing(), a.message()));
    } else {
      Answers.refuse(res, (CallReply.Refusal) reply);
    }
  }

  private void dispatch(
      CallReply.Dispatch d, HttpServletRequest req, HttpServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    String executionId = d.inFlight().id().value();
    DispatchRecorder recorder = d.recorder();
    DispatchObserver observer = new DispatchObserver(recorder, settings.maxResponseBytes());
    ObservedResponse observed = new ObservedResponse(res, observer);
    observer.watch(observed);
    boolean[] async = new boolean[1];
    BufferedRequest wrapped =
        new BufferedRequest(
                req,
                d.body(),
                Map.of(
                    idempotencyHeader,
                    executionId,
                    McpNames.HeaderNames.TRACEPARENT,
                    d.traceparent()))
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
      HttpServletRequest req,
      HttpServletResponse res,
      FilterChain chain,
      byte[] body,
      BodyScan scan,
      Headers headers)
      throws IOException, ServletException {
    LearningTap tap = new LearningTap(settings.maxResponseBytes(), scan.id(), intake.listings());
    // Write control (issue 18): the learner sees the whole answer, the client only what it may.
    ListingResponse hiding =
        intake.admission().listsEverything(headers)
            ? null
            : new ListingResponse(
                res,
                scan.id(),
                tool -> intake.admission().lists(tool, headers),
                settings.maxResponseBytes());
    ObservedResponse observed = new ObservedResponse(hiding == null ? res : hiding, tap);
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
    if (hiding != null) {
      wrapped.asyncWrapped(hiding::completing);
    }
    chain.doFilter(wrapped, observed);
    if (!async[0]) {
      tap.end();
      if (hiding != null) {
        observed.flushBuffer();
        hiding.finish();
      }
    }
  }

  /**
   * Waits up to {@code bound} for core's reply. Past the bound the client is told that nothing was
   * sent, and a reply that still comes is abandoned (a dispatch recorded as failed before any
   * effect): it never holds the call's key as if it had run.
   */
  private static CallReply await(
      CompletionStage<CallReply> stage, Duration bound, BodyScan scan, RequestSpan span) {
    try {
      return stage.toCompletableFuture().get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stage.thenAccept(CallReply::abandon);
      span.error(NOT_DECIDED.code().name());
      return CallReply.Refusal.of(scan.id(), NOT_DECIDED);
    } catch (ExecutionException | TimeoutException e) {
      stage.thenAccept(CallReply::abandon);
      span.error(NOT_DECIDED.code().name());
      return CallReply.Refusal.of(scan.id(), NOT_DECIDED);
    }
  }

  /** Ends a request span when its async answer is complete. */
  private record SpanEnd(RequestSpan span, HttpServletResponse res) implements AsyncListener {
    @Override
    public void onComplete(AsyncEvent event) {
      span.end(res.getStatus());
    }

    @Override
    public void onTimeout(AsyncEvent event) {
      span.error("timeout");
      span.end(res.getStatus());
    }

    @Override
    public void onError(AsyncEvent event) {
      span.error("exception");
      span.end(res.getStatus());
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
      event.getAsyncContext().addListener(this);
    }
  }

  private static void refuse(HttpServletResponse res, TallyError error) throws IOException {
    Answers.refuse(res, CallReply.Refusal.of(null, error));
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
    refuse(
        res,
        TallyError.of(
            TallyError.Code.PAYLOAD_TOO_LARGE,
            "request body exceeds limits.maxRequestBytes ("
                + settings.maxRequestBytes()
                + " bytes)"));
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
