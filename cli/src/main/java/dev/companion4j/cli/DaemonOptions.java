package dev.companion4j.cli;

import static dev.companion4j.daemon.conversation.DaemonSource.TOKEN_VARIABLE;
import static dev.companion4j.daemon.conversation.DaemonSource.URL_VARIABLE;

import dev.companion4j.daemon.conversation.DaemonSource;
import dev.companion4j.daemon.conversation.SpawnedDaemon;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Where {@code serve} finds the {@code qwen serve} daemon its review page chats with: nowhere
 * unless told.
 */
final class DaemonOptions {
  @Option(
      names = "--daemon",
      paramLabel = "URL",
      description =
          "Chat on the review page with the qwen serve daemon at URL, or with one started for the workspace"
              + " (spawn), stopped with the companion (default: $"
              + URL_VARIABLE
              + ", else no chat).")
  String url;

  @Option(
      names = "--daemon-token-file",
      paramLabel = "FILE",
      description =
          "The daemon's bearer token, in an owner-only file (default: $" + TOKEN_VARIABLE + ").")
  Path tokenFile;

  /**
   * The daemon these options describe, if any; the token is never an argument.
   *
   * @param workspace where a spawned daemon serves
   */
  Optional<DaemonSource> source(CommandSpec spec, Map<String, String> env, Path workspace) {
    String address = url != null ? url : env.get(URL_VARIABLE);
    if (address == null || address.isBlank()) {
      if (tokenFile != null) {
        throw new ParameterException(
            spec.commandLine(), "--daemon-token-file needs --daemon (or $" + URL_VARIABLE + ")");
      }
      return Optional.empty();
    }
    if (address.equals("spawn")) {
      if (tokenFile != null) {
        throw new ParameterException(
            spec.commandLine(),
            "--daemon-token-file is for a daemon that runs already;"
                + " a spawned one gets a fresh token");
      }
      return Optional.of(new SpawnedDaemon("qwen", workspace, env));
    }
    String token = tokenFile != null ? readToken(spec) : env.get(TOKEN_VARIABLE);
    try {
      return Optional.of(DaemonSource.running(address, token));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--daemon: " + e.getMessage());
    }
  }

  private String readToken(CommandSpec spec) {
    try {
      if (Files.getFileStore(tokenFile).supportsFileAttributeView("posix")) {
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(tokenFile);
        if (permissions.stream()
            .anyMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"))) {
          throw new ParameterException(
              spec.commandLine(),
              "--daemon-token-file "
                  + tokenFile
                  + " can be read by others; make it owner-only (chmod 600)");
        }
      }
      return Files.readString(tokenFile);
    } catch (IOException e) {
      throw new ParameterException(
          spec.commandLine(),
          "--daemon-token-file: cannot read " + tokenFile + ": " + e.getMessage());
    }
  }
}
