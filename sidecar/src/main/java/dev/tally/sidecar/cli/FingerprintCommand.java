package dev.tally.sidecar.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.actor.ActorResolvers;
import dev.tally.core.canonical.CanonicalizationException;
import dev.tally.core.canonical.Jcs;
import dev.tally.core.config.ConfigException;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.config.UrlRedaction;
import dev.tally.core.fingerprint.KeyException;
import dev.tally.core.fingerprint.KeyFiles;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.gate.Description;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.ToolCall;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.runtime.TallyRuntime;
import dev.tally.core.store.MemoryExecutionStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tally fingerprint}: a {@code tools/call} on stdin → the canonical action record and the
 * fingerprint Tally would compute for it. The same code path as the gate, without a store.
 */
@Command(
    name = "fingerprint",
    header = "Prints the canonical action record and fingerprint of a tools/call on stdin.",
    description = {
      "Reads a tools/call (a JSON-RPC request, or just its params) on stdin and prints the"
          + " canonical action record and the fingerprint Tally computes for it: the same code"
          + " path as the gate, without a store.",
      "Bad input or configuration: exit 2 and one line on stderr."
    })
final class FingerprintCommand implements Callable<Integer>, TallyCli.Streams {
  @Option(
      names = "--actor",
      defaultValue = "anonymous",
      description = "The actor (default: ${DEFAULT-VALUE}).")
  String actor;

  @Option(
      names = "--key-file",
      required = true,
      description = "HMAC key file (first line is the active key).")
  Path keyFile;

  @Option(
      names = "--config",
      description = "Tally configuration file (tool contracts, idempotency settings).")
  Path config;

  @Option(
      names = "--target",
      defaultValue = "",
      description = "Upstream identity (default: upstream.url from --config).")
  String target;

  @Option(
      names = {"-H", "--header"},
      paramLabel = "NAME:VALUE",
      description =
          "A request header NAME:VALUE or NAME=VALUE (e.g. 'Idempotency-Key: k1',"
              + " Tally-Intent-Scope=run-7); repeatable.")
  List<String> headersOption = new ArrayList<>();

  InputStream in = System.in;
  PrintStream out = System.out;
  PrintStream err = System.err;

  @Override
  public void streams(InputStream in, PrintStream out, PrintStream err) {
    this.in = in;
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    Map<String, String> h = new LinkedHashMap<>();
    for (int i = 0; i < headersOption.size(); i++) {
      String[] nv = header(headersOption.get(i));
      if (nv == null) {
        // The text is not echoed: a header may carry a credential.
        err.println(
            "tally fingerprint: -H number "
                + (i + 1)
                + " is malformed (expected: NAME:VALUE or NAME=VALUE, NAME an HTTP header name)");
        return TallyCli.EXIT_USAGE;
      }
      h.put(nv[0].toLowerCase(java.util.Locale.ROOT), nv[1]);
    }
    try {
      TallyConfig cfg = TallyConfig.load(config, ConfigOverrides.ofEnv(System.getenv()));
      KeyRing keys = KeyFiles.load(keyFile);
      String upstream = cfg.adapters().get("upstream").path("url").asText("");
      // The sidecar records its upstream without credentials: the same target gives the same
      // fingerprint.
      String tgt =
          !target.isEmpty()
              ? target
              : upstream.isEmpty() ? "unknown" : UrlRedaction.ofTarget(upstream);
      JsonNode params =
          params(
              Jcs.create(cfg.limits().canonical())
                  .parse(Input.readAll(in, cfg.limits().maxRequestBytes())));
      if (params == null) {
        err.println(
            "tally fingerprint: stdin: expected a tools/call request or its params with a string \"name\"");
        return TallyCli.EXIT_USAGE;
      }
      Headers headers = name -> h.get(name.toLowerCase(java.util.Locale.ROOT));
      ToolCall call =
          new ToolCall(
              params.get("name").asText(),
              params.get("arguments"),
              params.get("_meta"),
              params.has("inputResponses"),
              headers,
              tgt);
      try (MemoryExecutionStore store = MemoryExecutionStore.create();
          Gate gate =
              Gate.builder(store, keys)
                  .options(TallyRuntime.gateOptions(cfg, "cli"))
                  .contracts(cfg.tools().newRegistry())
                  .actors(ActorResolvers.fixed(actor))
                  .jcs(Jcs.create(cfg.limits().canonical()))
                  .build()) {
        TallyError[] refused = new TallyError[1];
        Description d = gate.describe(call, e -> refused[0] = e).orElse(null);
        if (d == null) {
          err.println("tally fingerprint: " + refused[0].code() + ": " + refused[0].message());
          return TallyCli.EXIT_USAGE;
        }
        out.println("canonical record: " + new String(d.canonicalRecord(), StandardCharsets.UTF_8));
        out.println("fingerprint:      " + d.fingerprint());
        out.println("tool class:       " + d.toolClass());
        out.println("matched by:       " + d.matchedBy());
        out.println("arguments:        " + d.summary());
        return 0;
      }
    } catch (ConfigException | KeyException e) {
      err.println("tally fingerprint: " + e.getMessage());
      return TallyCli.EXIT_USAGE;
    } catch (CanonicalizationException e) {
      err.println("tally fingerprint: stdin: " + e.getMessage());
      return TallyCli.EXIT_USAGE;
    } catch (Input.TooLarge e) {
      err.println("tally fingerprint: stdin larger than limits.maxRequestBytes");
      return TallyCli.EXIT_USAGE;
    } catch (IOException e) {
      err.println("tally fingerprint: cannot read stdin: " + e.getClass().getSimpleName());
      return TallyCli.EXIT_USAGE;
    }
  }

  /**
   * Splits {@code NAME:VALUE} or {@code NAME=VALUE} at the first {@code :} or {@code =} (neither
   * can occur in a header name, RFC 9110 token); the value loses surrounding blanks. Null if
   * malformed.
   */
  static String[] header(String s) {
    int at = -1;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == ':' || c == '=') {
        at = i;
        break;
      }
    }
    if (at <= 0) {
      return null;
    }
    String name = s.substring(0, at).strip();
    if (!name.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}")) {
      return null;
    }
    return new String[] {name, s.substring(at + 1).strip()};
  }

  private static JsonNode params(JsonNode root) {
    JsonNode p = root.has("params") ? root.get("params") : root;
    if (!p.isObject() || !p.path("name").isTextual()) {
      return null;
    }
    return p;
  }
}
