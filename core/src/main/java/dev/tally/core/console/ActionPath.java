package dev.tally.core.console;

import dev.tally.core.execution.ExecutionId;
import java.util.Optional;
import java.util.Set;

/**
 * The checks of an admin {@code POST /v1/<collection>/{id}/{action}} made before its body is read,
 * the same for every desk: a malformed id is 400 {@code INVALID_ID}, an action the desk does not
 * know 404 {@code NOT_FOUND}, a body not declared JSON 415 (no form post can act). One value per
 * collection ({@code actions}, {@code executions}).
 */
final class ActionPath {
  private final String collection;
  private final Set<String> actions;

  ActionPath(String collection, Set<String> actions) {
    this.collection = collection;
    this.actions = Set.copyOf(actions);
  }

  /** The execution id {@code raw} names, or null when it is not one. */
  static ExecutionId id(String raw) {
    return raw == null || !ExecutionId.isValid(raw) ? null : ExecutionId.parse(raw);
  }

  /** 400 {@code INVALID_ID}, naming the path this collection expects. */
  AdminReply badId() {
    return AdminReply.error(400, "INVALID_ID", "path: expected /v1/" + collection + "/act_<ULID>");
  }

  /** What is wrong with the request before its body is read; empty when it may go on. */
  Optional<AdminReply> check(String rawId, String action, String contentType) {
    if (id(rawId) == null) {
      return Optional.of(badId());
    }
    if (action == null || !actions.contains(action)) {
      return Optional.of(
          AdminReply.error(
              404,
              "NOT_FOUND",
              "no such action: " + AdminReply.quote(action == null ? "" : action)));
    }
    String refused = JsonOnly.problem(contentType);
    if (refused != null) {
      return Optional.of(
          AdminReply.error(415, "UNSUPPORTED_MEDIA_TYPE", refused)
              .withHeader("Accept", JsonOnly.MEDIA_TYPE));
    }
    return Optional.empty();
  }
}
