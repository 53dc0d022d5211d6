package dev.tally.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tally.core.canonical.ActionRecord;
import dev.tally.core.canonical.ArgumentNormalizer;
import dev.tally.core.canonical.Jcs;
import dev.tally.core.contract.FingerprintRules;
import dev.tally.core.fingerprint.Fingerprint;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The fingerprint path of one {@code tools/call}: parse the JSON-RPC request, normalize {@code
 * params.arguments} under a contract (one exclude, one default, one secret path), build the
 * canonical action record, RFC 8785 canonicalize it and HMAC it. {@link #jacksonReadWrite} is the
 * baseline measured in the same run: a plain Jackson {@code readTree} + {@code writeValueAsBytes}
 * of the same request bytes.
 *
 * <p>{@code java -jar bench/target/tally-bench.jar FingerprintBenchmark -f 1 -wi 3 -w 3s -i 5 -r 3s
 * -t 1}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class FingerprintBenchmark {
  private static final FingerprintRules RULES =
      new FingerprintRules(
          List.of(),
          List.of("/trace_id"),
          Map.of("/priority", TextNode.valueOf("normal")),
          List.of("/api_token"));

  /** {@code small}: a ~310-byte request; {@code large}: a ~10 KB request. */
  @Param({"small", "large"})
  public String size;

  private byte[] request;
  private Jcs jcs;
  private KeyRing keys;
  private ArgumentNormalizer normalizer;
  private ObjectMapper mapper;
  private ActionRecord record;

  @Setup
  public void setUp() {
    request =
        ("small".equals(size) ? smallRequest() : largeRequest()).getBytes(StandardCharsets.UTF_8);
    jcs = Jcs.create();
    byte[] key = new byte[32];
    new Random(1).nextBytes(key);
    keys = KeyRing.of(HmacKey.of("bench", key));
    normalizer =
        ArgumentNormalizer.create(
            ArgumentNormalizer.DEFAULT_IDEMPOTENCY_ARGUMENT, keys::secretReference, jcs);
    mapper = new ObjectMapper();
    record = record(jcs.parse(request));
  }

  /** The full path: request bytes in, fingerprint out. */
  @Benchmark
  public Fingerprint fullPath() {
    return keys.fingerprint(record(jcs.parse(request)).canonicalBytes(jcs));
  }

  /** Only canonicalize + HMAC of an already built action record (the target's definition). */
  @Benchmark
  public Fingerprint canonicalizeAndHmac() {
    return keys.fingerprint(record.canonicalBytes(jcs));
  }

  /** Baseline: what plain Jackson costs to read and write the same request. */
  @Benchmark
  public byte[] jacksonReadWrite() throws IOException {
    return mapper.writeValueAsBytes(mapper.readTree(request));
  }

  private ActionRecord record(JsonNode rpc) {
    JsonNode params = rpc.get("params");
    return new ActionRecord(
        "tok:5f0c3a9b1e7d2c4a",
        params.get("name").textValue(),
        ActionRecord.CHANNEL_MCP,
        "tickets-upstream",
        "cred:ops",
        normalizer.normalize(params.get("arguments"), RULES),
        "run:01JB7ZQ4T9V3K8M2N6P0R5S1XA");
  }

  static String smallRequest() {
    return "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\",\"params\":{\"name\":"
        + "\"create_ticket\",\"arguments\":{\"title\":\"Printer on floor 3 is on fire\","
        + "\"assignee\":\"ops-oncall\",\"tags\":[\"hardware\",\"urgent\"],"
        + "\"estimate_hours\":1.5,\"api_token\":\"sk_live_51HqLy\","
        + "\"trace_id\":\"4bf92f35\",\"idempotencyKey\":\"c0ffee-42\"},"
        + "\"_meta\":{\"progressToken\":\"p-42\"}}}";
  }

  /** An invoice with 48 line items, a customer, notes with non-ASCII text: about 10 KB. */
  static String largeRequest() {
    Random r = new Random(7);
    StringBuilder sb = new StringBuilder();
    sb.append("{\"jsonrpc\":\"2.0\",\"id\":\"req-9f8e7d\",\"method\":\"tools/call\",\"params\":{")
        .append("\"name\":\"create_invoice\",\"arguments\":{")
        .append("\"customer\":{\"id\":\"cus_8812\",\"name\":\"Zoë Müller GmbH\",\"email\":")
        .append("\"billing@example.com\",\"address\":{\"street\":\"Hauptstraße 12\",\"city\":")
        .append("\"München\",\"postal_code\":\"80331\",\"country\":\"DE\"}},")
        .append("\"currency\":\"EUR\",\"due_in_days\":30,\"api_token\":\"sk_live_51HqLyjWDar\",")
        .append("\"trace_id\":\"4bf92f3577b34da6a3ce929d0e0e4736\",\"line_items\":[");
    for (int i = 0; i < 48; i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append("{\"sku\":\"SKU-")
          .append(10000 + r.nextInt(90000))
          .append("\",\"description\":\"Consulting services, phase ")
          .append(i + 1)
          .append(" – architecture review\",\"quantity\":")
          .append(1 + r.nextInt(20))
          .append(",\"unit_price\":")
          .append(r.nextInt(100000) / 100.0)
          .append(",\"tax_rate\":0.19,\"discount\":")
          .append(r.nextInt(4) == 0 ? "null" : Double.toString(r.nextInt(30) / 100.0))
          .append(",\"tags\":[\"q")
          .append(1 + r.nextInt(4))
          .append("\",\"billable\"]}");
    }
    sb.append("],\"notes\":\"");
    for (int i = 0; i < 12; i++) {
      sb.append("Payment by bank transfer within 30 days — Zahlung per Überweisung. ");
    }
    sb.append("\",\"metadata\":{\"source\":\"agent\",\"run\":\"01JB7ZQ4T9V3K8M2N6P0R5S1XA\",")
        .append("\"attempt\":1,\"approved\":true}},\"_meta\":{\"progressToken\":17}}}");
    return sb.toString();
  }
}
