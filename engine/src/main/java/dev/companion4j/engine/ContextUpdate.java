package dev.companion4j.engine;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * The context as it goes on the wire: the params of the CLIs' {@code ide/contextUpdate}, and the
 * {@code context} of the editor API, which serves the same shape so an editor sees what the CLIs
 * see. Absent fields are left out rather than sent as null: the CLIs validate the payload with
 * schemas in which those fields are optional, not nullable.
 */
public record ContextUpdate(WorkspaceState workspaceState) {

  public static ContextUpdate of(IdeContext context) {
    return new ContextUpdate(
        new WorkspaceState(
            context.openFiles().stream().map(OpenFile::of).toList(), context.isTrusted()));
  }

  public record WorkspaceState(List<OpenFile> openFiles, boolean isTrusted) {
    public WorkspaceState {
      openFiles = List.copyOf(openFiles);
    }
  }

  /** Cursor and selection only on the active file; {@code isActive} only when true. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record OpenFile(
      String path,
      long timestamp,
      Boolean isActive,
      IdeContext.Cursor cursor,
      String selectedText) {
    static OpenFile of(IdeContext.OpenFile f) {
      if (!f.isActive()) {
        return new OpenFile(f.path(), f.timestamp(), null, null, null);
      }
      return new OpenFile(f.path(), f.timestamp(), true, f.cursor(), f.selectedText());
    }
  }
}
