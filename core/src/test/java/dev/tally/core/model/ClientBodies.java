package dev.tally.core.model;

import java.util.ArrayList;
import java.util.List;

/**
 * The bytes a client sends for a {@link Op.Call}. The same intent comes in many layouts, as real
 * clients send it: envelope members in either order, compact or spread whitespace, argument members
 * in either order with strings escaped or not, and {@code params._meta} absent, null, empty, with
 * other members, or with a forged {@code dev.tally/executionId}. Every layout of one argument set
 * has the same canonical form, so they are identical calls to the gate; the numbers are written the
 * same way in every layout (their canonical form is another engineer's subject).
 */
final class ClientBodies {
  /** How many layouts {@link Op.Call#shape()} selects from. */
  static final int SHAPES = 40;

  private ClientBodies() {}

  /** One argument member: name and its JSON value as the client writes it. */
  private record Member(String name, String rawJson, String text) {
    static Member text(String name, String value) {
      return new Member(name, null, value);
    }

    static Member raw(String name, String json) {
      return new Member(name, json, null);
    }
  }

  private static List<Member> argumentSet(int n) {
    return switch (n) {
      case 0 ->
          List.of(
              Member.text("title", "disk full on db-1"),
              Member.raw("priority", "2"),
              Member.raw("tags", "[\"ops\",\"db\"]"));
      case 1 ->
          List.of(
              Member.text("title", "Grüße ✓ \"quoted\""),
              Member.raw("priority", "1"),
              Member.raw("amount", "12.50"));
      default ->
          List.of(
              Member.text("title", "rollback"),
              Member.raw("target", "{\"env\":\"prod\",\"replicas\":3}"));
    };
  }

  /** The request of {@code c} with JSON-RPC id {@code rpcId} (JSON text: a number or string). */
  static byte[] render(Op.Call c, String rpcId) {
    int shape = c.shape();
    boolean paramsFirst = (shape & 1) != 0;
    boolean spread = (shape & 2) != 0;
    boolean escaped = (shape & 4) != 0;
    int metaForm = (shape >> 3) % 5;
    String sp = spread ? " " : "";
    String nl = spread ? "\n  " : "";

    List<String> args = new ArrayList<>();
    for (Member m : argumentSet(c.args())) {
      String value = m.rawJson() != null ? m.rawJson() : quote(m.text(), escaped);
      args.add(quote(m.name(), false) + ":" + sp + value);
    }
    if (c.key() >= 0 && !c.keyInHeader()) {
      args.add(quote("idempotencyKey", false) + ":" + sp + quote(World.KEYS.get(c.key()), escaped));
    }
    if (escaped) {
      java.util.Collections.reverse(args);
    }
    String arguments = "{" + String.join("," + sp, args) + "}";

    String meta = meta(metaForm, c.scope(), sp);
    List<String> params = new ArrayList<>();
    params.add(quote("name", false) + ":" + sp + quote(World.TOOLS.get(c.tool()), false));
    params.add(quote("arguments", false) + ":" + sp + arguments);
    if (meta != null) {
      // Before or after the other members, so the splice meets both.
      params.add(paramsFirst ? 0 : params.size(), quote("_meta", false) + ":" + sp + meta);
    }
    String paramsJson = "{" + nl + String.join("," + nl, params) + (spread ? "\n" : "") + "}";

    List<String> envelope = new ArrayList<>();
    envelope.add("\"jsonrpc\":" + sp + "\"2.0\"");
    envelope.add("\"id\":" + sp + rpcId);
    envelope.add("\"method\":" + sp + "\"tools/call\"");
    envelope.add("\"params\":" + sp + paramsJson);
    if (paramsFirst) {
      java.util.Collections.reverse(envelope);
    }
    return World.utf8("{" + nl + String.join("," + nl, envelope) + (spread ? "\n" : "") + "}");
  }

  private static String meta(int form, int scope, String sp) {
    String scoped =
        scope == 0
            ? null
            : quote("dev.tally/intentScope", false)
                + ":"
                + sp
                + quote(World.SCOPES.get(scope), false);
    String other =
        switch (form) {
          case 3 -> "\"progressToken\":" + sp + "7";
          case 4 -> "\"dev.tally/executionId\":" + sp + "\"act_01FORGEDBYTHECLIENT0000\"";
          default -> null;
        };
    if (scoped == null && other == null) {
      return switch (form) {
        case 0 -> null;
        case 1 -> "null";
        default -> "{}";
      };
    }
    List<String> members = new ArrayList<>();
    if (other != null) {
      members.add(other);
    }
    if (scoped != null) {
      members.add(scoped);
    }
    return "{" + String.join("," + sp, members) + "}";
  }

  /**
   * A JSON string of {@code s}; {@code escaped} writes its first character and non-ASCII as \\u.
   */
  private static String quote(String s, boolean escaped) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '"' || ch == '\\') {
        b.append('\\').append(ch);
      } else if (ch < 0x20 || (escaped && (i == 0 || ch > 0x7e))) {
        b.append(String.format("\\u%04x", (int) ch));
      } else {
        b.append(ch);
      }
    }
    return b.append('"').toString();
  }
}
