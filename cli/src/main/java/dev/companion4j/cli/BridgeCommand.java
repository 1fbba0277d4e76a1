package dev.companion4j.cli;

import dev.companion4j.cli.bridge.BridgeOptions;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code companion4j bridge}: a CLI's stdio MCP server, relayed to a running companion (see
 * docs/bridge.md).
 */
@Command(
    name = "bridge",
    mixinStandardHelpOptions = true,
    description = {
      "Relays a CLI's IDE connection over stdio to a running companion, translating paths.",
      "A CLI starts it as its IDE server: a discovery file's stdio entry, or",
      "QWEN_CODE_IDE_SERVER_STDIO_COMMAND / GEMINI_CLI_IDE_SERVER_STDIO_COMMAND.",
      "Use --map where the CLI sees the workspace elsewhere (a container).",
      "Exit codes: 0 the CLI ended the session; 1 no companion found or reached;",
      "2 bad usage; 3 the companion went away."
    })
final class BridgeCommand extends BridgeOptions implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    return run(spec.commandLine());
  }
}
