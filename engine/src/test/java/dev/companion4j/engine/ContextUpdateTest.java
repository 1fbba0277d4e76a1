package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The one encoding of the context, byte for byte what the CLIs' schemas accept. */
class ContextUpdateTest {

  @Test
  void leavesOutWhatIsAbsentAndGivesCursorAndSelectionOnlyToTheActiveFile() {
    IdeContext context =
        new IdeContext(
            List.of(
                new IdeContext.OpenFile("/w/a.txt", 2, true, new IdeContext.Cursor(3, 4), "sel"),
                new IdeContext.OpenFile("/w/b.txt", 1, false, null, null)),
            true);
    IdeContext noCaret =
        new IdeContext(List.of(new IdeContext.OpenFile("/w/c.txt", 5, true, null, null)), false);

    assertThat(JsonMapper.shared().writeValueAsString(ContextUpdate.of(context)))
        .isEqualTo(
            "{\"workspaceState\":{\"openFiles\":["
                + "{\"path\":\"/w/a.txt\",\"timestamp\":2,\"isActive\":true,\"cursor\":{\"line\":3,\"character\":4},\"selectedText\":\"sel\"},"
                + "{\"path\":\"/w/b.txt\",\"timestamp\":1}],\"isTrusted\":true}}");
    assertThat(JsonMapper.shared().writeValueAsString(ContextUpdate.of(noCaret)))
        .isEqualTo(
            "{\"workspaceState\":{\"openFiles\":[{\"path\":\"/w/c.txt\",\"timestamp\":5,\"isActive\":true}],\"isTrusted\":false}}");
  }
}
