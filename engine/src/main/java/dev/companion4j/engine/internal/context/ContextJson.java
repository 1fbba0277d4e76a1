package dev.companion4j.engine.internal.context;

import dev.companion4j.engine.IdeContext;
import dev.companion4j.engine.IdeContext.OpenFile;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code ide/contextUpdate} payload. Absent fields are left out rather than sent as null:
 * the CLIs validate the payload with schemas in which those fields are optional, not nullable.
 */
public final class ContextJson {
  private ContextJson() {}

  public static Map<String, Object> toParams(IdeContext context) {
    List<Map<String, Object>> files = new ArrayList<>();
    for (OpenFile f : context.openFiles()) {
      Map<String, Object> file = new LinkedHashMap<>();
      file.put("path", f.path());
      file.put("timestamp", f.timestamp());
      if (f.isActive()) {
        file.put("isActive", true);
        if (f.cursor() != null) {
          file.put("cursor", Map.of("line", f.cursor().line(), "character", f.cursor().character()));
        }
        if (f.selectedText() != null) {
          file.put("selectedText", f.selectedText());
        }
      }
      files.add(file);
    }
    Map<String, Object> workspace = new LinkedHashMap<>();
    workspace.put("openFiles", files);
    workspace.put("isTrusted", context.isTrusted());
    return Map.of("workspaceState", workspace);
  }
}
