package dev.tally.sidecar.admin;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The sidecar's name for core's {@link dev.tally.core.console.ToolResultShape} (the rule lives
 * there, for both adapters; the admin fuzz targets still call it by this name).
 */
final class ToolResultShape {
  private ToolResultShape() {}

  /** See {@link dev.tally.core.console.ToolResultShape#problem}. */
  static String problem(JsonNode result) {
    return dev.tally.core.console.ToolResultShape.problem(result);
  }
}
