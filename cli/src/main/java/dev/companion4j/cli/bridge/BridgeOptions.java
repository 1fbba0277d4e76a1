package dev.companion4j.cli.bridge;

import dev.companion4j.engine.ClientProcess;
import dev.companion4j.engine.Companion;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * The options of {@code companion4j bridge} and what they start: which companion to relay to and
 * where the CLI's paths are the companion's. The command extends it (picocli lists an argument
 * group of a mixin twice in the help).
 */
public class BridgeOptions {
  @ArgGroup(exclusive = true, multiplicity = "0..1")
  Selector selector;

  @Option(
      names = "--map",
      paramLabel = "CLI_PATH=COMPANION_PATH",
      converter = MappingConverter.class,
      description =
          "The CLI sees the folder COMPANION_PATH at CLI_PATH (e.g. /workspaces/app=/home/me/app); "
              + "both absolute. Repeatable: the longest matching prefix wins.")
  List<PathMap.Mapping> mappings = new ArrayList<>();

  /** At most one way of naming the companion; none means the workspace rule. */
  static final class Selector {
    @Option(
        names = "--workspace",
        paramLabel = "DIR",
        description =
            "The running companion whose workspace holds DIR (default: the companion side of the "
                + "first --map, else the current directory).")
    Path workspace;

    @Option(
        names = "--port",
        paramLabel = "PORT",
        converter = PortConverter.class,
        description = "The running companion on PORT, with the token from its discovery file.")
    Integer port;

    @ArgGroup(exclusive = false)
    Explicit explicit;
  }

  /** A companion this machine has no discovery file of, e.g. across a network namespace. */
  static final class Explicit {
    @Option(
        names = "--address",
        paramLabel = "HOST:PORT",
        required = true,
        converter = HostPortConverter.class,
        description = "The companion at HOST:PORT (needs --token-file).")
    CompanionTarget.HostPort address;

    @Option(
        names = "--token-file",
        paramLabel = "FILE",
        required = true,
        description =
            "Its token, read from FILE, which must be its owner's only (as ssh wants its keys).")
    Path tokenFile;
  }

  /**
   * Relays between this process's stdin/stdout and the companion until either ends.
   *
   * @return the exit code, one of {@link Bridge}'s
   * @throws CommandLine.ParameterException when two mappings share a side
   */
  public int run(CommandLine command) {
    PathMap paths = paths(command);
    PrintStream err = System.err;
    // Stdout carries the CLI's messages and nothing else: anything printed by mistake goes to
    // stderr.
    OutputStream out =
        new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 64 * 1024);
    System.setOut(err);
    CompanionTarget target;
    try {
      target = target(paths, Path.of("").toAbsolutePath(), DiscoveryLocations.fromEnvironment());
    } catch (BridgeFailure e) {
      err.println("companion4j bridge: " + e.getMessage());
      return e.exitCode();
    }
    // Both CLIs call themselves stdio-client; the companion sees only this process, so the
    // handshake names the CLI that started it, as the companion names a process it sees.
    Optional<ClientProcess> cli =
        ProcessHandle.current()
            .parent()
            .map(parent -> Companion.describeProcess(parent.pid()))
            .filter(parent -> !parent.program().isEmpty());
    return Bridge.run(target, paths, cli, System.in, out, err);
  }

  /**
   * @throws CommandLine.ParameterException when two mappings share a side
   */
  PathMap paths(CommandLine command) {
    try {
      return new PathMap(mappings);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(
          command, "Invalid value for option '--map' (CLI_PATH=COMPANION_PATH): " + e.getMessage());
    }
  }

  CompanionTarget target(PathMap paths, Path cwd, DiscoveryLocations locations)
      throws BridgeFailure {
    if (selector != null && selector.explicit != null) {
      return CompanionTarget.at(
          selector.explicit.address, cwd.resolve(selector.explicit.tokenFile));
    }
    if (selector != null && selector.port != null) {
      return CompanionTarget.onPort(selector.port, locations);
    }
    Path dir =
        selector != null && selector.workspace != null
            ? cwd.resolve(selector.workspace)
            : paths.isEmpty() ? cwd : Path.of(paths.mappings().get(0).companionPath());
    return CompanionTarget.serving(dir, locations);
  }

  static final class MappingConverter implements CommandLine.ITypeConverter<PathMap.Mapping> {
    @Override
    public PathMap.Mapping convert(String value) {
      try {
        return PathMap.Mapping.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(value + ": " + e.getMessage());
      }
    }
  }

  static final class PortConverter implements CommandLine.ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      try {
        int port = Integer.parseInt(value);
        if (port >= 1 && port <= 65_535) {
          return port;
        }
      } catch (NumberFormatException e) {
        // Said below.
      }
      throw new CommandLine.TypeConversionException(value + ": a port is a number from 1 to 65535");
    }
  }

  static final class HostPortConverter
      implements CommandLine.ITypeConverter<CompanionTarget.HostPort> {
    @Override
    public CompanionTarget.HostPort convert(String value) {
      try {
        return CompanionTarget.HostPort.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(value + ": " + e.getMessage());
      }
    }
  }
}
