package dev.companion4j.cli;

import dev.companion4j.cli.editorapi.EditorApi;
import dev.companion4j.engine.Companion;
import dev.companion4j.engine.IdeInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A companion for the headless host, with its routes mounted: the editor API and the review page.
 * Closing it ends the editor API's event streams before the companion stops.
 */
final class HeadlessCompanion implements AutoCloseable {
  private final Companion companion;
  private final EditorApi editorApi;

  private HeadlessCompanion(Companion companion, EditorApi editorApi) {
    this.companion = companion;
    this.editorApi = editorApi;
  }

  /** Builds (does not start) a headless companion; {@code settings} may adjust the builder. */
  static HeadlessCompanion build(IdeInfo ideInfo, List<Path> roots, UnaryOperator<Companion.Builder> settings) {
    EditorApi editorApi = new EditorApi();
    HeadlessHost host = new HeadlessHost(ideInfo, roots, editorApi);
    Companion.Builder builder = settings.apply(Companion.builder(host)).route(EditorApi.pathSpec(), editorApi);
    ReviewPages.mount(builder);
    Companion companion = builder.build();
    editorApi.attach(companion);
    return new HeadlessCompanion(companion, editorApi);
  }

  Companion companion() {
    return companion;
  }

  @Override
  public void close() {
    editorApi.shutdown();
    companion.close();
  }
}
