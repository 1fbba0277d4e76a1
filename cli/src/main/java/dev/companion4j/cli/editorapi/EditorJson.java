package dev.companion4j.cli.editorapi;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.ConnectedClient;
import dev.companion4j.engine.DiffOutcome;
import dev.companion4j.engine.PendingDiff;
import java.util.LinkedHashMap;
import java.util.Map;

/** The editor API's JSON shapes, in one place so the page, hooks and docs agree. */
final class EditorJson {
  private EditorJson() {}

  static Map<String, Object> diff(PendingDiff d) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("filePath", d.filePath());
    m.put("originalContent", d.originalContent());
    m.put("newContent", d.newContent());
    m.put("openedAt", d.openedAt().toString());
    m.put("clientId", d.clientId());
    return m;
  }

  static Map<String, Object> client(ConnectedClient c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", c.id());
    m.put("name", c.name());
    m.put("version", c.version());
    m.put("connectedAt", c.connectedAt().toString());
    return m;
  }

  static Map<String, Object> closed(PendingDiff d, DiffOutcome outcome) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("filePath", d.filePath());
    m.put("outcome", outcomeName(outcome));
    return m;
  }

  static Map<String, Object> state(Companion companion) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ideInfo", Map.of("name", companion.ideInfo().name(), "displayName", companion.ideInfo().displayName()));
    m.put("workspaceRoots", companion.workspaceRoots().stream().map(Object::toString).toList());
    m.put("clients", companion.clients().stream().map(EditorJson::client).toList());
    m.put("context", companion.context().toNotificationParams());
    m.put("pendingDiffs", companion.pendingDiffs().stream().map(EditorJson::diff).toList());
    return m;
  }

  private static String outcomeName(DiffOutcome outcome) {
    if (outcome instanceof DiffOutcome.Accepted) {
      return "accepted";
    } else if (outcome instanceof DiffOutcome.Rejected) {
      return "rejected";
    } else if (outcome instanceof DiffOutcome.ClosedByClient) {
      return "closedByClient";
    } else if (outcome instanceof DiffOutcome.Replaced) {
      return "replaced";
    }
    return "clientGone";
  }
}
