package dev.companion4j.netbeans;

import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link AgentPeer}'s process: the fake model, and a real agent's command on it. Run with the kind
 * ({@code QWEN} or {@code GEMINI}) and a folder; it writes a command named as the agent, {@code
 * FOLDER/bin/qwen} say, that starts the real CLI in ACP mode with its home under the folder and the
 * fake model as its model, prints {@code {"agent": COMMAND, "workspace": DIR}} and serves the model
 * until its input ends.
 */
public final class AgentPeerMain {
  private AgentPeerMain() {}

  public static void main(String[] args) throws IOException {
    HeadlessCli.Kind kind = HeadlessCli.Kind.valueOf(args[0]);
    Path root = Path.of(args[1]);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    try (FakeModelServer model = new FakeModelServer()) {
      HeadlessCli cli = new HeadlessCli(kind, CliEnvironment.in(root), model);
      if (kind == HeadlessCli.Kind.GEMINI) {
        // What answering Gemini CLI's folder-trust question once records; ACP mode cannot ask.
        cli.trustTheWorkspace();
      }
      StringBuilder script = new StringBuilder("#!/bin/sh\n");
      cli.variables()
          .forEach(
              (k, v) -> script.append("export ").append(k).append("='").append(v).append("'\n"));
      script.append("exec node '").append(kind.executable()).append("' --acp \"$@\"\n");
      Path agent = Files.createDirectories(root.resolve("bin")).resolve(kind.runtime);
      Files.writeString(agent, script);
      Files.setPosixFilePermissions(agent, PosixFilePermissions.fromString("rwx------"));
      out.println(
          JsonMapper.shared()
              .writeValueAsString(
                  Map.of("agent", agent.toString(), "workspace", cli.env.workspace().toString())));
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      while (in.readLine() != null) {
        // Serves until the test closes the input.
      }
    }
  }
}
