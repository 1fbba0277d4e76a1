package dev.companion4j.cli;

import dev.companion4j.daemon.conversation.DaemonSource;
import dev.companion4j.engine.IdeInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The options {@code serve} and {@code run} share, and the companion they describe. */
final class CompanionOptions {
  /** Each session holds a stream and a queue; far beyond this a typo is likelier than a need. */
  private static final int MAX_CLIS = 1024;

  @Option(
      names = "--workspace",
      paramLabel = "DIR",
      description = "A workspace root; repeat for several. Default: the current directory.")
  List<Path> workspaces = new ArrayList<>();

  @Option(
      names = "--ide-name",
      paramLabel = "N",
      description = "Short IDE id the CLIs show (default: ${DEFAULT-VALUE}).")
  String ideName = HeadlessCompanion.IDE_INFO.name();

  @Option(
      names = "--ide-display-name",
      paramLabel = "D",
      description = "IDE name the CLIs show (default: ${DEFAULT-VALUE}).")
  String ideDisplayName = HeadlessCompanion.IDE_INFO.displayName();

  @Option(names = "--open", description = "Open the review page in the default browser.")
  boolean open;

  @Option(
      names = "--max-clis",
      paramLabel = "N",
      description =
          "How many CLI sessions may be connected at once, 1 to "
              + MAX_CLIS
              + " (default: ${DEFAULT-VALUE}).")
  int maxClis = HeadlessCompanion.MAX_CLIS;

  /** The companion these options describe, not yet started. */
  HeadlessCompanion build(CommandSpec spec) {
    return build(spec, roots -> Optional.empty());
  }

  /**
   * The companion these options describe, not yet started, chatting with the daemon {@code daemon}
   * names for its roots, if any.
   */
  HeadlessCompanion build(CommandSpec spec, Function<List<Path>, Optional<DaemonSource>> daemon) {
    List<Path> roots = roots(spec);
    if (maxClis < 1 || maxClis > MAX_CLIS) {
      throw new ParameterException(
          spec.commandLine(), "--max-clis must be from 1 to " + MAX_CLIS + ", not " + maxClis);
    }
    return HeadlessCompanion.build(
        ideInfo(spec), roots, builder -> builder.maxClients(maxClis), daemon.apply(roots));
  }

  /** The workspace roots, absolute; each must be a directory. */
  List<Path> roots(CommandSpec spec) {
    List<Path> roots = new ArrayList<>();
    for (Path w : workspaces.isEmpty() ? List.of(Path.of("")) : workspaces) {
      Path root = w.toAbsolutePath().normalize();
      if (!Files.isDirectory(root)) {
        throw new ParameterException(spec.commandLine(), "--workspace is not a directory: " + root);
      }
      roots.add(root);
    }
    return roots;
  }

  /** The name the CLIs show for the IDE. */
  IdeInfo ideInfo(CommandSpec spec) {
    try {
      return new IdeInfo(ideName, ideDisplayName);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
