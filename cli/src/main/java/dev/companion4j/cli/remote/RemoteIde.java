package dev.companion4j.cli.remote;

import dev.companion4j.engine.IdeInfo;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.engine.discovery.StdioDiscoveryFiles;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import tools.jackson.databind.json.JsonMapper;

/**
 * A companion elsewhere, announced on the CLI's side as reachable through a {@link StdioCommand}:
 * discovery files with the command and the IDE's name, and the CLIs' variables for the same. The
 * files live until {@link #close}, or until the JVM ends on a signal.
 */
public final class RemoteIde implements AutoCloseable {
  /**
   * Inherited from an editor's terminal, these steer the CLIs to that editor's companion: Qwen Code
   * reads the lock its port names first, Gemini CLI dials the port and prefers the pid's file.
   */
  private static final List<String> LOCAL_COMPANION_VARIABLES =
      List.of(
          "QWEN_CODE_IDE_SERVER_PORT", "GEMINI_CLI_IDE_SERVER_PORT", "GEMINI_CLI_IDE_AUTH_TOKEN");

  private final StdioCommand command;
  private final String workspacePath;
  private final long pid;
  private final StdioDiscoveryFiles files;
  private final Thread cleanup;

  private RemoteIde(
      StdioCommand command,
      String workspacePath,
      long pid,
      StdioDiscoveryFiles files,
      Thread cleanup) {
    this.command = command;
    this.workspacePath = workspacePath;
    this.pid = pid;
    this.files = files;
    this.cleanup = cleanup;
  }

  /**
   * Writes the discovery files where a CLI started with {@code env} looks for them.
   *
   * @param roots the workspace roots, as the CLI sees them
   * @param pid the process that outlives the CLI: Qwen Code deletes a lock whose owner has died
   * @throws IOException when the files cannot be written; none is left behind
   */
  public static RemoteIde announce(
      StdioCommand command, List<Path> roots, IdeInfo ideInfo, Map<String, String> env, long pid)
      throws IOException {
    String workspacePath =
        roots.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    StdioDiscoveryFiles files =
        new StdioDiscoveryFiles(DiscoveryLocations.fromEnvironment(env), pid);
    // Registered before writing: a SIGTERM may arrive while the files are being written.
    Thread cleanup = new Thread(files::removeAll, "companion4j-remote-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    try {
      files.write(workspacePath, command.command(), command.args(), ideInfo);
    } catch (IOException | RuntimeException e) {
      files.removeAll();
      removeHook(cleanup);
      throw e;
    }
    return new RemoteIde(command, workspacePath, pid, files, cleanup);
  }

  /**
   * Sets the CLIs' stdio and workspace variables in {@code environment} and removes those that
   * would send them to a local companion instead. Gemini CLI is given this process as the IDE's
   * pid, which the name of its file carries, so it prefers that file to any other for the folder.
   */
  public void applyTo(Map<String, String> environment) {
    LOCAL_COMPANION_VARIABLES.forEach(environment::remove);
    String args = JsonMapper.shared().writeValueAsString(command.args());
    environment.put("QWEN_CODE_IDE_SERVER_STDIO_COMMAND", command.command());
    environment.put("QWEN_CODE_IDE_SERVER_STDIO_ARGS", args);
    environment.put("QWEN_CODE_IDE_WORKSPACE_PATH", workspacePath);
    environment.put("GEMINI_CLI_IDE_SERVER_STDIO_COMMAND", command.command());
    environment.put("GEMINI_CLI_IDE_SERVER_STDIO_ARGS", args);
    environment.put("GEMINI_CLI_IDE_WORKSPACE_PATH", workspacePath);
    environment.put("GEMINI_CLI_IDE_PID", Long.toString(pid));
  }

  /** The discovery files written and not yet removed. */
  public List<Path> files() {
    return files.files();
  }

  /** Removes the discovery files; safe to call twice. */
  @Override
  public void close() {
    files.removeAll();
    removeHook(cleanup);
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or has run; the files are gone either way.
    }
  }
}
