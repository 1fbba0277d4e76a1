package dev.companion4j.engine.discovery;

import dev.companion4j.engine.IdeInfo;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

/**
 * The discovery files of an IDE that the CLIs reach by running a command (MCP over its stdin and
 * stdout) instead of dialling a port: Qwen Code's {@code <qwenHome>/ide/<n>.lock} and Gemini CLI's
 * {@code <tmp>/gemini/ide/gemini-ide-server-<pid>-<n>.json}, each with a {@code stdio} entry and
 * the {@code ideInfo} by which the CLIs detect the IDE, and no port or token.
 *
 * <p>{@code pid} is the process that owns the files; Qwen Code deletes a lock whose {@code ppid} is
 * not alive, so it must live as long as the CLI. Files are written and refused exactly as {@link
 * DiscoveryFiles} writes and refuses a companion's.
 */
public final class StdioDiscoveryFiles {
  private static final Logger log = LoggerFactory.getLogger(StdioDiscoveryFiles.class);
  private static final JsonFactory JSON_FACTORY = new JsonFactory();
  private static final List<DiscoveryFileKind> KINDS =
      List.of(DiscoveryFileKind.QWEN_LOCK, DiscoveryFileKind.GEMINI);

  /**
   * Files are numbered from here plus the pid: above every TCP port, so a name can never be a
   * companion's port-named file, nor be read as one through a CLI's port variable.
   */
  private static final int FIRST_NUMBER = 65_536;

  private final DiscoveryLocations locations;
  private final long pid;
  private final Set<Path> written = new LinkedHashSet<>();

  public StdioDiscoveryFiles(DiscoveryLocations locations, long pid) {
    this.locations = locations;
    this.pid = pid;
  }

  /**
   * Writes (or rewrites) both files, skipping a place that cannot be trusted.
   *
   * @param workspacePath the roots the CLI must run in, joined with the OS path separator
   * @param command the program the CLIs start
   * @param args its arguments
   * @return the files written
   * @throws IOException when a trusted place cannot be written, or no file at all could be; the
   *     files written before stay recorded for {@link #removeAll}
   */
  public synchronized List<Path> write(
      String workspacePath, String command, List<String> args, IdeInfo ideInfo) throws IOException {
    byte[] bytes = content(workspacePath, command, args, ideInfo);
    int number = Math.toIntExact(FIRST_NUMBER + pid);
    WritePass pass = new WritePass();
    try {
      for (DiscoveryFileKind kind : KINDS) {
        Path file = kind.path(locations, pid, number);
        if (pass.write(file, kind.sharedUpTo(locations), bytes)) {
          written.add(file);
        }
      }
    } finally {
      pass.logRefusals();
    }
    return pass.written();
  }

  private byte[] content(String workspacePath, String command, List<String> args, IdeInfo ideInfo) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator json = JSON_FACTORY.createGenerator(ObjectWriteContext.empty(), out)) {
      json.writeStartObject();
      json.writeStringProperty("workspacePath", workspacePath);
      json.writeName("stdio");
      json.writeStartObject();
      json.writeStringProperty("command", command);
      json.writeName("args");
      json.writeStartArray();
      for (String arg : args) {
        json.writeString(arg);
      }
      json.writeEndArray();
      json.writeEndObject();
      DiscoveryFiles.writeIdeInfo(json, ideInfo);
      json.writeNumberProperty("ppid", pid);
      json.writeEndObject();
    }
    return out.toByteArray();
  }

  /** The files written and not yet removed. */
  public synchronized List<Path> files() {
    return List.copyOf(written);
  }

  /** Removes every file written; safe to call twice. */
  public synchronized void removeAll() {
    for (Path file : written) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        log.warn("Could not remove discovery file {}: {}", file, e.getMessage());
      }
    }
    written.clear();
  }
}
