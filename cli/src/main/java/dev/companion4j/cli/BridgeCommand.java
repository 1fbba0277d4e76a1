package dev.companion4j.cli;

import dev.companion4j.cli.bridge.BridgeOptions;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code companion4j bridge}: a CLI's stdio MCP server, relayed to a running companion (see docs/bridge.md). */
@Command(
    name = "bridge",
    mixinStandardHelpOptions = true,
    description = {
      "Speaks MCP on stdin/stdout for a CLI that starts it as its IDE server (a discovery file's stdio entry,",
      "or QWEN_CODE_IDE_SERVER_STDIO_COMMAND / GEMINI_CLI_IDE_SERVER_STDIO_COMMAND), and relays every message",
      "to a running companion, translating paths where the CLI sees the workspace elsewhere (a container).",
      "Exit codes: 0 the CLI ended the session, 1 no companion found or reached, 2 bad usage,",
      "3 the companion went away."
    })
final class BridgeCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin BridgeOptions options;

  @Override
  public Integer call() {
    return options.run(spec.commandLine());
  }
}
