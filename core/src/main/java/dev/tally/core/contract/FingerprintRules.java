package dev.tally.core.contract;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * How a tool's arguments are normalized before fingerprinting. Paths are RFC 6901 JSON pointers
 * into {@code arguments}.
 *
 * @param include if non-empty, only these paths enter the fingerprint
 * @param exclude paths dropped (no semantic meaning)
 * @param defaults values materialized when the path is absent
 * @param secrets paths replaced by a keyed reference (the value never enters the record)
 */
public record FingerprintRules(
    List<String> include,
    List<String> exclude,
    Map<String, JsonNode> defaults,
    List<String> secrets) {

  public static final FingerprintRules NONE =
      new FingerprintRules(List.of(), List.of(), Map.of(), List.of());

  public FingerprintRules {
    include = List.copyOf(include);
    exclude = List.copyOf(exclude);
    defaults = Map.copyOf(defaults);
    secrets = List.copyOf(secrets);
  }
}
