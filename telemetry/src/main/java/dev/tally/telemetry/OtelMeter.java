package dev.tally.telemetry;

import dev.tally.core.observe.McpOperation;
import dev.tally.core.observe.Meter;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * {@link Meter} on an OpenTelemetry meter: the instruments of docs/metrics.md. Durations are
 * recorded in seconds with the bucket boundaries the MCP semantic conventions advise.
 */
final class OtelMeter implements Meter {
  static final AttributeKey<String> DECISION = AttributeKey.stringKey("tally.decision");
  static final AttributeKey<String> STATE = AttributeKey.stringKey("tally.state");
  static final AttributeKey<String> TOOL = AttributeKey.stringKey("gen_ai.tool.name");
  static final AttributeKey<String> METHOD = AttributeKey.stringKey("mcp.method.name");
  static final AttributeKey<String> VERSION = AttributeKey.stringKey("mcp.protocol.version");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> OPERATION = AttributeKey.stringKey("tally.store.operation");

  /** semantic-conventions-genai, {@code mcp.server.operation.duration}. */
  static final List<Double> MCP_BUCKETS =
      List.of(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0);

  static final List<Double> STORE_BUCKETS =
      List.of(
          0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
          2.5, 5.0);

  private final io.opentelemetry.api.metrics.Meter meter;
  private final DoubleHistogram operations;
  private final LongCounter decisions;
  private final LongCounter states;
  private final LongCounter unknown;
  private final DoubleHistogram attachWaits;
  private final DoubleHistogram store;

  /** What the duration's attributes depend on (never the request or session id). */
  private record OperationKey(String method, String tool, String version, String errorType) {}

  private record Pair(String first, String tool) {}

  private final AttributeSets<OperationKey> operationSets =
      new AttributeSets<>(OtelMeter::operationAttributes);
  private final AttributeSets<Pair> decisionSets =
      new AttributeSets<>(k -> Attributes.of(DECISION, k.first(), TOOL, k.tool()));
  private final AttributeSets<Pair> stateSets =
      new AttributeSets<>(k -> Attributes.of(STATE, k.first(), TOOL, k.tool()));
  private final AttributeSets<Pair> storeSets =
      new AttributeSets<>(
          k ->
              k.tool() == null
                  ? Attributes.of(OPERATION, k.first())
                  : Attributes.of(OPERATION, k.first(), ERROR_TYPE, k.tool()));

  OtelMeter(io.opentelemetry.api.metrics.Meter meter) {
    this.meter = meter;
    this.operations =
        meter
            .histogramBuilder("mcp.server.operation.duration")
            .setUnit("s")
            .setDescription("MCP requests handled, from the body read to the answer written")
            .setExplicitBucketBoundariesAdvice(MCP_BUCKETS)
            .build();
    this.decisions =
        meter
            .counterBuilder("tally.decisions")
            .setDescription("the gate's decisions on tools/call, by decision and tool")
            .build();
    this.states =
        meter
            .counterBuilder("tally.executions")
            .setDescription("states executions entered on this instance, by state and tool")
            .build();
    this.unknown =
        meter
            .counterBuilder("tally.outcome_unknown")
            .setDescription(
                "executions that turned outcome_unknown on this instance (an operator must act)")
            .build();
    this.attachWaits =
        meter
            .histogramBuilder("tally.attach.wait.duration")
            .setUnit("s")
            .setDescription("how long a retry waited for the execution it attached to")
            .setExplicitBucketBoundariesAdvice(MCP_BUCKETS)
            .build();
    this.store =
        meter
            .histogramBuilder("tally.store.operation.duration")
            .setUnit("s")
            .setDescription("execution store operations, by operation and error.type")
            .setExplicitBucketBoundariesAdvice(STORE_BUCKETS)
            .build();
  }

  /** Records one MCP request of {@code op} that took {@code nanos}. */
  void operation(McpOperation op, long nanos, String errorType) {
    operations.record(
        nanos / 1e9,
        operationSets.of(
            new OperationKey(op.method(), op.tool(), op.protocolVersion(), errorType)));
  }

  private static Attributes operationAttributes(OperationKey k) {
    AttributesBuilder a = Attributes.builder().put(METHOD, k.method());
    if (k.tool() != null) {
      a.put(TOOL, k.tool());
    }
    if (k.version() != null) {
      a.put(VERSION, k.version());
    }
    if (k.errorType() != null) {
      a.put(ERROR_TYPE, k.errorType());
    }
    return a.build();
  }

  @Override
  public void decision(String decision, String tool) {
    decisions.add(1, decisionSets.of(new Pair(decision, tool == null ? "" : tool)));
  }

  @Override
  public void state(String state, String tool) {
    states.add(1, stateSets.of(new Pair(state, tool == null ? "" : tool)));
    if ("outcome_unknown".equals(state)) {
      unknown.add(1, Attributes.of(TOOL, tool == null ? "" : tool));
    }
  }

  @Override
  public void attachWait(long nanos) {
    attachWaits.record(nanos / 1e9);
  }

  @Override
  public void storeOperation(String operation, long nanos, boolean failed) {
    store.record(nanos / 1e9, storeSets.of(new Pair(operation, failed ? "store_failure" : null)));
  }

  @Override
  public void gauge(String name, String description, String unit, LongSupplier value) {
    var b = meter.gaugeBuilder(name).ofLongs().setDescription(description);
    if (unit != null && !unit.isEmpty()) {
      b.setUnit(unit);
    }
    b.buildWithCallback(m -> m.record(read(value)));
  }

  @Override
  public void counter(String name, String description, String unit, LongSupplier value) {
    var b = meter.counterBuilder(name).setDescription(description);
    if (unit != null && !unit.isEmpty()) {
      b.setUnit(unit);
    }
    b.buildWithCallback(m -> m.record(read(value)));
  }

  @Override
  public void counterSeries(
      String name, String description, String unit, java.util.function.Consumer<Series> observe) {
    var b = meter.counterBuilder(name).setDescription(description);
    if (unit != null && !unit.isEmpty()) {
      b.setUnit(unit);
    }
    b.buildWithCallback(
        m -> {
          try {
            observe.accept(
                (value, attributes) -> {
                  var a = io.opentelemetry.api.common.Attributes.builder();
                  attributes.forEach(a::put);
                  m.record(value, a.build());
                });
          } catch (RuntimeException e) {
            // as in read(): one broken callback must not break the scrape
          }
        });
  }

  /** A callback that throws must not break the scrape of every other metric. */
  private static long read(LongSupplier value) {
    try {
      return value.getAsLong();
    } catch (RuntimeException e) {
      return 0;
    }
  }
}
