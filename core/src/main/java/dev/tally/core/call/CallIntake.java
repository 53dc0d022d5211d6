package dev.tally.core.call;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.actor.IdentityRefused;
import dev.tally.core.gate.Confirmations;
import dev.tally.core.gate.Decision;
import dev.tally.core.gate.RequestStates;
import dev.tally.core.gate.ToolCall;
import dev.tally.core.mcp.BodyScan;
import dev.tally.core.mcp.HeaderRules;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.mcp.ToolCallEnvelope;
import dev.tally.core.mcp.ToolCallReader;
import dev.tally.core.mcp.ToolParamHeaders;
import dev.tally.core.mcp.WireJson;
import dev.tally.core.observe.Meter;
import dev.tally.core.observe.RequestSpan;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The one pipeline from a classified POST body to what an adapter does with it, shared by the
 * sidecar (single calls and batch elements alike) and the servlet filter. Thread-safe.
 *
 * <p>A message that is not a {@code tools/call} only has its mirrored headers checked ({@link
 * #check}). A {@code tools/call} ({@link #admit}) takes one of two paths: a well-formed call of a
 * tool the gate lets pass unrecorded ({@link Admission#passesThrough}) whose tool declares no
 * {@code Mcp-Param-*} headers is forwarded without being read whole (its headers checked from the
 * scan); every other call is read by {@link ToolCallReader}, its headers checked against the
 * arguments, decided by the gate, and the decision walked into a {@link CallReply} ({@link
 * DecisionWalk}). Nothing here blocks; a store failure becomes {@code STORE_UNAVAILABLE} with
 * nothing sent. The tools' contracts come from configuration and the {@link ToolCatalogue}.
 */
public final class CallIntake {
  static final TallyError NOT_ADMITTED =
      TallyError.of(
          TallyError.Code.STORE_UNAVAILABLE,
          "the call could not be admitted now; nothing was sent, retry later");

  private static final CallReply FORWARD = new CallReply.Forward();

  private final Admission admission;
  private final ToolCallReader reader;
  private final ToolParamHeaders params;
  private final ListingLearner listings;
  private final ToolCatalogue catalogue;
  private final String target;
  private final DecisionWalk walk;

  private CallIntake(
      Admission admission, WireJson json, String target, ToolCatalogue.Options catalogue) {
    this.admission = admission;
    this.reader = ToolCallReader.create(json);
    ToolParamHeaders shared = admission.paramHeaders();
    this.params = shared != null ? shared : ToolParamHeaders.create();
    this.listings = new ListingLearner(json, admission.contracts(), params);
    this.catalogue = new ToolCatalogue(listings, admission.contracts(), json, catalogue);
    this.target = target;
    this.walk = new DecisionWalk(admission, target);
  }

  /**
   * An intake deciding through {@code admission}, reading with {@code json}'s limits, recording
   * {@code target} (the upstream's identity) in every action record; it learns tools from clients'
   * {@code tools/list} answers only.
   */
  public static CallIntake create(Admission admission, WireJson json, String target) {
    return create(admission, json, target, ToolCatalogue.Options.clientsOnly(target));
  }

  /**
   * As {@link #create(Admission, WireJson, String)}, with a {@link ToolCatalogue} that lists and
   * keeps as {@code catalogue} says (start it with {@code catalogue().start()}).
   */
  public static CallIntake create(
      Admission admission, WireJson json, String target, ToolCatalogue.Options catalogue) {
    Objects.requireNonNull(admission, "admission");
    Objects.requireNonNull(json, "json");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(catalogue, "catalogue");
    return new CallIntake(admission, json, target, catalogue);
  }

  public Admission admission() {
    return admission;
  }

  /** What this intake learns from {@code tools/list} answers. */
  public ListingLearner listings() {
    return listings;
  }

  /** The tool catalogue the intake decides with. */
  public ToolCatalogue catalogue() {
    return catalogue;
  }

  /**
   * The refusal of a message that is not a {@code tools/call} ({@code scan} accepted by the
   * classifier) because its mirrored headers disagree with it, or empty.
   */
  public Optional<CallReply.Refusal> check(BodyScan scan, Headers headers) {
    return HeaderRules.check(headers, scan, null, Map.of())
        .map(e -> CallReply.Refusal.of(scan.id(), e));
  }

  /**
   * Decides the {@code tools/call} message in {@code len} bytes of {@code b} from {@code off},
   * which the classifier found to be {@code scan}. The stage never fails. A call of a tool neither
   * configured nor known first waits (bounded) for the catalogue to list ({@link
   * ToolCatalogue#awaitKnown}); {@code b} must stay unchanged until the stage completes.
   */
  public CompletionStage<CallReply> admit(
      BodyScan scan, byte[] b, int off, int len, Headers headers) {
    return admit(scan, b, off, len, headers, RequestSpan.NONE);
  }

  /**
   * As {@link #admit(BodyScan, byte[], int, int, Headers)}, recording the admission as a child of
   * the request's {@code span} (the adapter started it and ends it) with the decision, the
   * execution and, for an answer that is an error, its {@code error.type}; a dispatch's reply
   * carries the span of its upstream request ({@link CallReply.Dispatch#traceparent()}).
   */
  public CompletionStage<CallReply> admit(
      BodyScan scan, byte[] b, int off, int len, Headers headers, RequestSpan span) {
    CompletionStage<Void> known = scan.wellFormedCall() ? catalogue.awaitKnown(scan.name()) : null;
    if (known != null) {
      return known.thenCompose(v -> decide(scan, b, off, len, headers, span));
    }
    return decide(scan, b, off, len, headers, span);
  }

  private CompletionStage<CallReply> decide(
      BodyScan scan, byte[] b, int off, int len, Headers headers, RequestSpan span) {
    Meter meter = admission.telemetry().meter();
    if (scan.wellFormedCall()
        && admission.passesThrough(scan.name())
        && params.forTool(scan.name()).isEmpty()) {
      Optional<CallReply.Refusal> bad = check(scan, headers);
      if (bad.isPresent()) {
        return refused(span, bad.get());
      }
      span.decision("pass_through");
      meter.decision("pass_through", scan.name());
      return done(FORWARD);
    }
    ToolCallReader.Read read = reader.read(b, off, len);
    if (read instanceof ToolCallReader.Refused r) {
      return refused(span, CallReply.Refusal.of(r.id(), r.error()));
    }
    ToolCallEnvelope call = ((ToolCallReader.Ok) read).envelope();
    JsonNode id = call.id();
    Map<String, List<String>> declared = params.forTool(call.tool());
    Optional<TallyError> mismatch = HeaderRules.check(headers, scan, call.arguments(), declared);
    if (mismatch.isPresent()) {
      return refused(span, CallReply.Refusal.of(id, mismatch.get()));
    }
    ConfirmationOffer.FollowUp followUp = null;
    if (RequestStates.isTally(call.requestState()) && admission.confirmations() != null) {
      FollowUpRead f = followUp(call, headers);
      if (f.refusal() != null) {
        return refused(span, f.refusal());
      }
      followUp = f.followUp();
      call = f.call();
    }
    final ToolCallEnvelope decided = call;
    final ConfirmationOffer.FollowUp stated = followUp;
    ToolCall toolCall =
        new ToolCall(
            decided.tool(),
            decided.arguments(),
            decided.meta(),
            decided.continuation(),
            headers,
            target);
    RequestSpan.Step admit = span.step(RequestSpan.StepKind.ADMIT);
    CompletionStage<CallReply> reply;
    try {
      reply =
          admission
              .admit(toolCall)
              .thenCompose(
                  d -> {
                    admit.end(CallSpans.errorType(d));
                    return walkOrSettle(d, decided, span, stated);
                  });
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    return reply.exceptionally(
        t -> {
          admit.end(NOT_ADMITTED.code().name());
          span.error(NOT_ADMITTED.code().name());
          return CallReply.Refusal.of(id, NOT_ADMITTED);
        });
  }

  /** A verified follow-up and the call without its MRTR members, or the refusal of its state. */
  private record FollowUpRead(
      ToolCallEnvelope call, ConfirmationOffer.FollowUp followUp, CallReply.Refusal refusal) {}

  /**
   * Verifies the {@code requestState} of Tally's that {@code call} echoed (issue 18): it must have
   * been made for this caller and this tool and not have expired; the call then goes on without its
   * {@code inputResponses} and {@code requestState}, which were Tally's own round and never reach
   * the upstream as an MRTR continuation.
   */
  private FollowUpRead followUp(ToolCallEnvelope call, Headers headers) {
    Confirmations c = admission.confirmations();
    String actor;
    try {
      actor = c.actorOf(headers);
    } catch (IdentityRefused e) {
      return new FollowUpRead(call, null, CallReply.Refusal.of(call.id(), e.error()));
    }
    RequestStates.Verified v =
        c.requestStates().verify(call.requestState(), actor, call.tool(), c.now());
    if (v instanceof RequestStates.Invalid bad) {
      return new FollowUpRead(call, null, CallReply.Refusal.of(call.id(), bad.error()));
    }
    byte[] bare = call.withoutInput();
    ToolCallReader.Read again = reader.read(bare, 0, bare.length);
    if (!(again instanceof ToolCallReader.Ok ok)) {
      return new FollowUpRead(call, null, CallReply.Refusal.of(call.id(), NOT_ADMITTED));
    }
    return new FollowUpRead(
        ok.envelope(),
        new ConfirmationOffer.FollowUp(((RequestStates.Valid) v).claims(), call.inputResponses()),
        null);
  }

  private static CompletionStage<CallReply> refused(RequestSpan span, CallReply.Refusal r) {
    span.decision("refuse");
    span.error(r.error().code().name());
    return done(r);
  }

  /**
   * Walks {@code d}; a dispatch whose reply could not be made (nothing was sent for it) is recorded
   * as failed before any effect, so its claim does not turn into an unknown outcome.
   */
  private CompletionStage<CallReply> walkOrSettle(
      Decision d, ToolCallEnvelope call, RequestSpan span, ConfirmationOffer.FollowUp followUp) {
    try {
      return walk.walk(d, call, span, followUp);
    } catch (RuntimeException e) {
      if (d instanceof Decision.Dispatch dispatch) {
        dispatch.inFlight().failedBeforeEffect(0, "the call could not be prepared for sending");
      }
      throw e;
    }
  }

  private static CompletionStage<CallReply> done(CallReply r) {
    return CompletableFuture.completedFuture(r);
  }
}
