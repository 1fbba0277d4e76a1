package dev.companion4j.netbeans;

import junit.framework.Test;

/** {@link NetBeansAcpIdeToolsIT} with the real {@code gemini --acp} of Gemini CLI 0.61.0. */
public class NetBeansGeminiAcpIdeToolsIT extends NetBeansAcpIdeToolsIT {
  public NetBeansGeminiAcpIdeToolsIT(String name) {
    super(name);
  }

  public static Test suite() {
    return Ui.platform(NetBeansGeminiAcpIdeToolsIT.class)
        .addTest("testTheAgentsGetDiagnosticsAnswersNetBeansJavacError")
        .suite();
  }

  @Override
  protected String agent() {
    return "gemini";
  }
}
