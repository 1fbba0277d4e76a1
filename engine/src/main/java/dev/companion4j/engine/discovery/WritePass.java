package dev.companion4j.engine.discovery;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pass of writes over discovery places, shared by {@link DiscoveryFiles} and {@link
 * StdioDiscoveryFiles}: a place that cannot be trusted is skipped and logged once with every file
 * skipped for it, a trusted place that cannot be written fails the pass, and a pass in which places
 * were refused and nothing was written fails too: a companion no CLI can find should not serve. Not
 * thread-safe; one pass per write.
 */
final class WritePass {
  private static final Logger log = LoggerFactory.getLogger(DiscoveryFiles.class);

  private final List<Path> written = new ArrayList<>();

  /** Why each refused place was refused, and the files skipped for it. */
  private final Map<String, List<String>> refused = new LinkedHashMap<>();

  /**
   * Writes {@code bytes} to {@code file} atomically and owner-only.
   *
   * @return false when the file's place (or its name) cannot be trusted and nothing was written
   * @throws IOException when a trusted place cannot be written
   */
  boolean write(Path file, Path sharedUpTo, byte[] bytes) throws IOException {
    try {
      DiscoveryFiles.writeAtomically(file, sharedUpTo, bytes);
    } catch (FileTrust.Refused e) {
      refused
          .computeIfAbsent(e.getMessage(), why -> new ArrayList<>())
          .add(file.getFileName().toString());
      return false;
    } catch (IOException e) {
      throw new IOException("cannot write " + file + ": " + FileTrust.reason(e), e);
    }
    written.add(file);
    return true;
  }

  /** Logs the refused places, one line each; call it however the pass ended. */
  void logRefusals() {
    refused.forEach(
        (why, files) -> log.warn("Skipped discovery file {}: {}", String.join(", ", files), why));
  }

  /**
   * @return the files written
   * @throws IOException when places were refused and no file at all was written
   */
  List<Path> written() throws IOException {
    if (written.isEmpty() && !refused.isEmpty()) {
      throw new IOException(
          "no discovery file could be written: " + String.join("; ", refused.keySet()));
    }
    return List.copyOf(written);
  }
}
