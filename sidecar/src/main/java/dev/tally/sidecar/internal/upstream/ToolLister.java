package dev.tally.sidecar.internal.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.call.ToolCatalogue;
import dev.tally.core.call.ToolCatalogue.ListingFailed;
import dev.tally.core.mcp.McpNames;
import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.core.mcp.McpNames.Methods;
import dev.tally.core.mcp.ProtocolVersions;
import dev.tally.core.mcp.RpcOutcome;
import dev.tally.core.mcp.WireJson;
import dev.tally.sidecar.SidecarOptions;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The sidecar's own MCP client for the upstream's tool catalogue ({@link ToolCatalogue.Lister}): on
 * a session of its own, with no client's credentials (only {@code upstream.listToolsHeaderFile}'s
 * headers), it lists every page of {@code tools/list}.
 *
 * <p>First as a 2025-03-26 … 2025-11-25 client: {@code initialize} at {@value #LEGACY_VERSION},
 * {@code notifications/initialized} and {@code tools/list} at the version the server answered, on
 * the session it assigned, then {@code DELETE} to end that session. An upstream that does not take
 * {@code initialize} (a 2026-07-28 server has no handshake; it answers an HTTP 4xx or a JSON-RPC
 * error) is asked as a 2026-07-28 client instead: a stateless {@code tools/list} with {@code
 * MCP-Protocol-Version}, {@code Mcp-Method} and the version in {@code _meta}. An answer HTTP 401 or
 * 403 fails the listing at once (the upstream wants credentials). Every request is bounded by
 * {@code upstream.timeout} without a byte, every answer by {@code upstream.maxResponseBytes}, the
 * listing by {@value #MAX_PAGES} pages.
 */
public final class ToolLister implements ToolCatalogue.Lister, AutoCloseable {
  /** The version the sidecar's own session asks for first. */
  static final String LEGACY_VERSION = dev.tally.core.call.OwnCalls.LEGACY_VERSION;

  static final int MAX_PAGES = 100;
  private static final String CLIENT_NAME = "tally-sidecar";

  private final OwnClient own;
  private final WireJson json;

  private ToolLister(Vertx vertx, SidecarOptions options) {
    this.own = OwnClient.create(vertx, options);
    this.json = own.json();
  }

  public static ToolLister create(Vertx vertx, SidecarOptions options) {
    return new ToolLister(vertx, options);
  }

  @Override
  public CompletionStage<List<byte[]>> list() {
    return legacy()
        .recover(e -> e instanceof NotLegacy n ? modern(n.getMessage()) : Future.failedFuture(e))
        .toCompletionStage();
  }

  @Override
  public void close() {
    own.close();
  }

  /** The server did not take the legacy handshake: worth asking in the 2026-07-28 way. */
  private static final class NotLegacy extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotLegacy(String message) {
      super(message, null, false, false);
    }
  }

  private Future<List<byte[]>> legacy() {
    ObjectNode init = dev.tally.core.call.OwnCalls.initialize(CLIENT_NAME);
    return post(init, HttpHeaders.headers(), dev.tally.core.call.OwnCalls.INITIALIZE_ID)
        .compose(
            a -> {
              refuseAuth("initialize", a);
              String version = negotiated(a);
              if (version == null) {
                return Future.failedFuture(new NotLegacy("initialize: " + describe(a)));
              }
              if (ProtocolVersions.isModern(version)) {
                return Future.failedFuture(new NotLegacy("initialize: version " + version));
              }
              MultiMap h = HttpHeaders.headers().set(HeaderNames.PROTOCOL_VERSION, version);
              if (a.session() != null) {
                h.set(HeaderNames.SESSION_ID, a.session());
              }
              return post(dev.tally.core.call.OwnCalls.initialized(), h, null)
                  .compose(n -> pages(h, false, new ArrayList<>(), null, 0))
                  .andThen(done -> endSession(h));
            });
  }

  private Future<List<byte[]>> modern(String whyNotLegacy) {
    MultiMap h =
        HttpHeaders.headers()
            .set(HeaderNames.PROTOCOL_VERSION, ProtocolVersions.MODERN)
            .set(HeaderNames.METHOD, Methods.TOOLS_LIST);
    return pages(h, true, new ArrayList<>(), null, 0)
        .recover(
            e ->
                Future.failedFuture(
                    e instanceof ListingFailed f && !isAuth(f)
                        ? new ListingFailed(
                            whyNotLegacy
                                + "; as a "
                                + ProtocolVersions.MODERN
                                + " client: "
                                + f.getMessage())
                        : e));
  }

  private Future<List<byte[]>> pages(
      MultiMap h, boolean modern, List<byte[]> acc, String cursor, int n) {
    ObjectNode list = request(2 + n, Methods.TOOLS_LIST);
    ObjectNode params = list.putObject("params");
    if (cursor != null) {
      params.put("cursor", cursor);
    }
    if (modern) {
      params.putObject("_meta").put(McpNames.MetaKeys.PROTOCOL_VERSION, ProtocolVersions.MODERN);
    }
    return post(list, h, list.get("id"))
        .compose(
            a -> {
              refuseAuth("tools/list", a);
              if (a.outcome() instanceof RpcOutcome.Result r) {
                acc.add(r.result());
                String next = nextCursor(r.result());
                if (next != null && n + 1 < MAX_PAGES) {
                  return pages(h, modern, acc, next, n + 1);
                }
                return Future.succeededFuture(List.copyOf(acc));
              }
              return Future.failedFuture(new ListingFailed("tools/list: " + describe(a)));
            });
  }

  private ObjectNode request(int id, String method) {
    ObjectNode o = json.strict().createObjectNode();
    o.put("jsonrpc", "2.0");
    o.put("id", id);
    o.put("method", method);
    return o;
  }

  /** POSTs {@code msg}; the answer's outcome for {@code id} ({@code null}: none awaited). */
  private Future<OwnClient.Answer> post(ObjectNode msg, MultiMap extra, JsonNode id) {
    return own.post(msg, extra, id)
        .recover(e -> Future.failedFuture(new ListingFailed(e.getMessage())));
  }

  private void endSession(MultiMap h) {
    own.endSession(h);
  }

  private static boolean isAuth(ListingFailed f) {
    return f.getMessage().startsWith("HTTP 401") || f.getMessage().startsWith("HTTP 403");
  }

  private static void refuseAuth(String step, OwnClient.Answer a) {
    if (a.status() == 401 || a.status() == 403) {
      throw new ListingFailed(
          "HTTP "
              + a.status()
              + " to "
              + step
              + ": the upstream wants credentials the sidecar's own session does not have"
              + " (upstream.listToolsHeaderFile)");
    }
  }

  private String negotiated(OwnClient.Answer a) {
    return a.status() == 200 ? own.negotiated(a.outcome()) : null;
  }

  private String nextCursor(byte[] result) {
    try {
      JsonNode c = json.strict().readTree(result).get("nextCursor");
      return c != null && c.isTextual() && !c.textValue().isEmpty() ? c.textValue() : null;
    } catch (IOException | RuntimeException e) {
      // RuntimeException: Jackson's NumberFormatException for a number it cannot hold exactly
      return null;
    }
  }

  private static String describe(OwnClient.Answer a) {
    if (a.outcome() instanceof RpcOutcome.Error e) {
      return "HTTP " + a.status() + ", JSON-RPC error " + e.error().code();
    }
    return "HTTP " + a.status() + " without an answer";
  }
}
