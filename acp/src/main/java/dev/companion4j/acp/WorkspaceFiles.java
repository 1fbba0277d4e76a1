package dev.companion4j.acp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where the agent's {@code fs/read_text_file} and {@code fs/write_text_file} go, once the
 * connection confined the path to the workspace roots: an editor reads its buffer where the file is
 * open there (unsaved text included) and the disk otherwise.
 */
public interface WorkspaceFiles {
  /**
   * The file's text.
   *
   * @throws java.nio.file.NoSuchFileException when there is no such file, which the agent is told
   *     as ACP's resource-not-found
   */
  String read(Path file) throws IOException;

  /**
   * Replaces the file's text, creating it and its folders when missing; a write the user reviews
   * first completes once the user answered, holding no thread meanwhile.
   *
   * @return completes once written, or exceptionally with the reason the agent is told (e.g. that
   *     the user rejected the edit)
   */
  CompletionStage<Void> write(Path file, String text);

  /** The files on disk, as UTF-8; a write replaces the file at once, never half written. */
  static WorkspaceFiles disk() {
    return new WorkspaceFiles() {
      @Override
      public String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
      }

      @Override
      public CompletionStage<Void> write(Path file, String text) {
        try {
          replace(file, text);
          return CompletableFuture.completedFuture(null);
        } catch (IOException e) {
          return CompletableFuture.failedFuture(e);
        }
      }

      private static void replace(Path file, String text) throws IOException {
        Path dir = file.getParent();
        Files.createDirectories(dir);
        Path temp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
        try {
          Files.writeString(temp, text, StandardCharsets.UTF_8);
          Files.move(
              temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
          Files.deleteIfExists(temp);
        }
      }
    };
  }
}
