package dev.companion4j.netbeans;

import junit.framework.Test;

/**
 * {@link NetBeansAcpChatIT} with the real {@code gemini --acp} of Gemini CLI 0.61.0, but for what
 * it does not do through the client: write a new file, and read a file (its {@code read_file} reads
 * the disk, so it never sees an editor's unsaved text).
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
            "testClosingTheWindowStopsTheAgent")
        .suite();
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
