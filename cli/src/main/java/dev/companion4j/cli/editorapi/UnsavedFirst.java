package dev.companion4j.cli.editorapi;

import dev.companion4j.acp.WorkspaceFiles;
import dev.companion4j.engine.Companion;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The files of a headless companion as the editors that follow it see them: a read gets the unsaved
 * text an editor pushed with its {@code dirty} event ({@link Companion#unsavedText}), else the
 * store's; writes go to the store, since the companion holds no buffer to write into.
 */
public final class UnsavedFirst implements WorkspaceFiles {
  private final Companion companion;
  private final WorkspaceFiles store;

  public UnsavedFirst(Companion companion, WorkspaceFiles store) {
    this.companion = Objects.requireNonNull(companion, "companion");
    this.store = Objects.requireNonNull(store, "store");
  }

  @Override
  public String read(Path file) throws IOException {
    Optional<String> unsaved = companion.unsavedText(file);
    return unsaved.isPresent() ? unsaved.get() : store.read(file);
  }

  @Override
  public CompletionStage<Void> write(Path file, String text) {
    return store.write(file, text);
  }
}
