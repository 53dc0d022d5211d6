package dev.tally.sidecar.internal.rpc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/** Jackson factories configured once for a depth limit; thread-safe and shared per sidecar. */
public final class JsonRpc {
  /** JSON-RPC method of a tool call. */
  public static final String TOOLS_CALL = "tools/call";

  /** JSON-RPC method listing tools. */
  public static final String TOOLS_LIST = "tools/list";

  public static final String INITIALIZE = "initialize";

  private final JsonFactory factory;
  private final ObjectMapper mapper;
  private final int maxDepth;

  private JsonRpc(int maxDepth) {
    this.maxDepth = maxDepth;
    StreamReadConstraints limits =
        StreamReadConstraints.builder().maxNestingDepth(maxDepth).build();
    this.factory =
        JsonFactory.builder()
            .streamReadConstraints(limits)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();
    this.mapper = JsonMapper.builder(factory).build();
  }

  /** Factories that refuse input nested deeper than {@code maxDepth}. */
  public static JsonRpc create(int maxDepth) {
    if (maxDepth < 4) {
      throw new IllegalArgumentException("maxDepth must be at least 4");
    }
    return new JsonRpc(maxDepth);
  }

  public JsonFactory factory() {
    return factory;
  }

  public ObjectMapper mapper() {
    return mapper;
  }

  public int maxDepth() {
    return maxDepth;
  }

  JsonParser parser(byte[] bytes, int off, int len) throws java.io.IOException {
    return factory.createParser(bytes, off, len);
  }
}
