package dev.companion4j.cli.attach;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code companion4j attach}: an editor plugin's one process for finding and talking to its
 * companion.
 */
@Command(
    name = "attach",
    mixinStandardHelpOptions = true,
    description = {
      "Connects an editor plugin to the companion serving its folder, over JSON lines on stdin and stdout",
      "(docs/attach.md). Runs until stdin ends; logs go to stderr."
    })
public final class AttachCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--workspace",
      paramLabel = "DIR",
      description = "The folder the editor edits (default: the current one).")
  Path workspace = Path.of("");

  @Option(
      names = "--start",
      description =
          "When no companion serves the folder at the start, run one in this process until attach ends.")
  boolean start;

  @Override
  public Integer call() throws Exception {
    Path dir = workspace.toAbsolutePath().normalize();
    if (!Files.isDirectory(dir)) {
      throw new ParameterException(spec.commandLine(), "--workspace is not a directory: " + dir);
    }
    Finder finder;
    try {
      finder = Finder.of(System.getenv(), dir);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    // stdout is the editor's: whatever else prints (a library, a stray line) goes to stderr.
    Out out = new Out(new FileOutputStream(FileDescriptor.out));
    System.setOut(System.err);
    EditorClient client = new EditorClient();
    Link link = new Link(finder, client, out, dir, start);
    // SIGTERM or SIGINT: the companion started here stops as serve's does, its CLIs told first.
    Runtime.getRuntime().addShutdownHook(new Thread(link::stop, "companion4j-attach-stop"));
    new Attach(link, client, out).serve(System.in);
    return 0;
  }
}
