package dev.tally.core.testing;

import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * What an adapter exported to a WireMock OTLP/HTTP collector, decoded with the official protobuf
 * messages: the one reader the sidecar's and the filter's export tests share.
 */
public final class OtlpExports {
  private OtlpExports() {}

  /** Every span {@code collector} received so far; {@code resource} checks each span's resource. */
  public static List<Span> spans(WireMockServer collector, Consumer<Resource> resource) {
    List<Span> out = new ArrayList<>();
    for (LoggedRequest r : collector.findAll(postRequestedFor(urlPathEqualTo("/v1/traces")))) {
      try {
        ExportTraceServiceRequest.parseFrom(r.getBody())
            .getResourceSpansList()
            .forEach(
                rs -> {
                  resource.accept(rs.getResource());
                  rs.getScopeSpansList().forEach(ss -> out.addAll(ss.getSpansList()));
                });
      } catch (com.google.protobuf.InvalidProtocolBufferException e) {
        throw new AssertionError("not an OTLP trace export: " + r.getUrl(), e);
      }
    }
    return out;
  }

  /** The names of every metric {@code collector} received so far. */
  public static List<String> metricNames(WireMockServer collector) {
    List<String> out = new ArrayList<>();
    for (LoggedRequest r : collector.findAll(postRequestedFor(urlPathEqualTo("/v1/metrics")))) {
      try {
        ExportMetricsServiceRequest.parseFrom(r.getBody())
            .getResourceMetricsList()
            .forEach(
                rm ->
                    rm.getScopeMetricsList()
                        .forEach(sm -> sm.getMetricsList().forEach(m -> out.add(m.getName()))));
      } catch (com.google.protobuf.InvalidProtocolBufferException e) {
        throw new AssertionError("not an OTLP metrics export: " + r.getUrl(), e);
      }
    }
    return out;
  }

  /** The one span of {@code spans} that {@code which} selects (asserted). */
  public static Span only(List<Span> spans, Predicate<Span> which) {
    List<Span> found = spans.stream().filter(which).toList();
    assertThat(found).as("matching spans among " + names(spans)).hasSize(1);
    return found.get(0);
  }

  /** A string attribute of {@code s}. */
  public static Optional<String> attr(Span s, String key) {
    for (KeyValue kv : s.getAttributesList()) {
      if (kv.getKey().equals(key)) {
        return Optional.of(kv.getValue().getStringValue());
      }
    }
    return Optional.empty();
  }

  public static List<String> names(List<Span> spans) {
    return spans.stream().map(Span::getName).toList();
  }

  /** A trace or span id as the {@code traceparent} header writes it. */
  public static String id(com.google.protobuf.ByteString b) {
    return HexFormat.of().formatHex(b.toByteArray());
  }

  /** A random id of {@code bytes} bytes, never all zero, in hex. */
  public static String hex(int bytes) {
    byte[] b = new byte[bytes];
    ThreadLocalRandom.current().nextBytes(b);
    b[0] |= 1;
    return HexFormat.of().formatHex(b);
  }
}
