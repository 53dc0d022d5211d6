package dev.tally.core.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.contract.ToolContract;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a person is shown of a call before confirming it (issue 18): the tool, the target, whether
 * it can be undone, and the arguments with every secret masked: the contract's {@code secrets}
 * paths, and any member whose name says it holds a credential. Long strings are shortened.
 */
public final class PendingPreview {
  /** What a masked value reads as. */
  public static final String MASK = "***";

  static final int MAX_STRING = 200;
  private static final Pattern SECRET_NAME =
      Pattern.compile(
          "(?i).*(pass(word|wd|phrase)?|secret|token|api[_-]?key|auth(orization)?|credential"
              + "|private[_-]?key|cookie|session).*");
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private PendingPreview() {}

  /** The preview of a call of {@code contract}'s tool to {@code target} with {@code arguments}. */
  public static ObjectNode of(ToolContract contract, String target, JsonNode arguments) {
    ObjectNode p = F.objectNode();
    p.put("tool", contract.tool());
    p.put("target", target == null ? "" : target);
    p.put("irreversible", contract.toolClass() == ToolClass.IRREVERSIBLE);
    JsonNode masked = mask(arguments == null ? F.objectNode() : arguments.deepCopy(), "", contract);
    p.set("arguments", masked);
    return p;
  }

  private static JsonNode mask(JsonNode n, String pointer, ToolContract c) {
    if (c.fingerprint().secrets().contains(pointer) && !pointer.isEmpty()) {
      return F.textNode(MASK);
    }
    if (n instanceof ObjectNode o) {
      ObjectNode out = F.objectNode();
      for (Map.Entry<String, JsonNode> m : o.properties()) {
        String child = pointer + "/" + m.getKey().replace("~", "~0").replace("/", "~1");
        if (SECRET_NAME.matcher(m.getKey()).matches() && !m.getValue().isContainerNode()) {
          out.put(m.getKey(), MASK);
        } else {
          out.set(m.getKey(), mask(m.getValue(), child, c));
        }
      }
      return out;
    }
    if (n instanceof ArrayNode a) {
      ArrayNode out = F.arrayNode();
      for (int i = 0; i < a.size(); i++) {
        out.add(mask(a.get(i), pointer + "/" + i, c));
      }
      return out;
    }
    if (n.isTextual() && n.textValue().length() > MAX_STRING) {
      return F.textNode(n.textValue().substring(0, MAX_STRING) + "…");
    }
    return n;
  }
}
