package dev.companion4j.netbeans;

import java.nio.file.Files;
import java.nio.file.Path;
import junit.framework.Test;

/**
 * {@link NetBeansAcpChatIT} with the real {@code gemini --acp} of Gemini CLI 0.61.0: its writes go
 * over files that exist (it cannot create one through the client); it has no read test (its {@code
 * read_file} reads the disk, so it never sees an editor's unsaved text) and no session to load (it
 * keeps none in ACP mode).
 */
public class NetBeansGeminiAcpChatIT extends NetBeansAcpChatIT {
  public NetBeansGeminiAcpChatIT(String name) {
    super(name);
  }

  public static Test suite() {
    return Ui.platform(NetBeansGeminiAcpChatIT.class)
        .addTest(
            "testTheOptionsPickTheAgentAndAPromptStreamsAnAnswer",
            "testAnAcceptedWriteHoldsTheUsersEdit",
            "testARejectedWriteLeavesTheFileAndFailsTheCall",
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

  /** Gemini CLI cannot create a file through the client: it writes over one that exists. */
  @Override
  protected Path fileToWrite(String name) throws Exception {
    return Files.writeString(super.fileToWrite(name), "before the agent wrote\n");
  }

  /** Gemini CLI shows the failed call without the reason. */
  @Override
  protected String rejectionShown() {
    return "\u2014 failed";
  }

  @Override
  protected String windowTitle() {
    return "Gemini CLI Chat";
  }

  @Override
  protected String versionCommand() {
    return "/about";
  }

  @Override
  protected String versionText() {
    return "Version: 0.61.0";
  }

  @Override
  protected String editMode() {
    return "autoEdit";
  }
}
