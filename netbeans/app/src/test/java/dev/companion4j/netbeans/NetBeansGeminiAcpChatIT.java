package dev.companion4j.netbeans;

import junit.framework.Test;

/**
 * {@link NetBeansAcpChatIT} with the real {@code gemini --acp} of Gemini CLI 0.61.0, but for what
 * it does not do through the client: write a new file, and read a file (its {@code read_file} reads
 * the disk, so it never sees an editor's unsaved text), and load a session (it keeps none in ACP
 * mode).
 */
public class NetBeansGeminiAcpChatIT extends NetBeansAcpChatIT {
  public NetBeansGeminiAcpChatIT(String name) {
    super(name);
  }

  public static Test suite() {
    return Ui.platform(NetBeansGeminiAcpChatIT.class)
        .addTest(
            "testTheOptionsPickTheAgentAndAPromptStreamsAnAnswer",
            "testAModeThatEditsWritesIntoTheOpenDocumentUnaskedAndDefaultAsksAgain",
            "testCancelStopsATurn",
            "testSessionsSaysTheAgentListsNone",
            "testClosingTheWindowStopsTheAgent")
        .suite();
  }

  /** Gemini CLI offers no {@code session/list}: the window says so instead of an empty menu. */
  public void testSessionsSaysTheAgentListsNone() throws Exception {
    Ui.click(chatWindow(), "companion4j.chat.sessions");

    Await.until(
        WAIT,
        () -> label("companion4j.chat.state"),
        ("Cannot list sessions: gemini-cli does not list its sessions (it offers no"
                + " session/list)")
            ::equals);
  }

  @Override
  protected String agent() {
    return "gemini";
  }

  @Override
  protected String editMode() {
    return "autoEdit";
  }
}
