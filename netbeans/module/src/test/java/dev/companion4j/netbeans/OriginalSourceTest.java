package dev.companion4j.netbeans;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.engine.DiffId;
import dev.companion4j.engine.PendingDiff;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import javax.swing.text.DefaultEditorKit;
import javax.swing.text.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The left side of a proposal's diff: NetBeans' diff view shows a document its source offers as it
 * is, and reads a source without one into a new document on the EDT. The file's text comes ready in
 * a document, so that the EDT does no reading however long the file.
 */
class OriginalSourceTest {
  @TempDir Path dir;

  @Test
  void theFilesTextComesInADocumentMadeBeforeTheWindow() throws Exception {
    Path file = dir.resolve("Big.java");
    Files.writeString(file, "class Big {\r\n  int a;\r\n}\r\n");
    PendingDiff diff =
        new PendingDiff(
            DiffId.random(),
            file.toString(),
            file,
            "class Big {\r\n  int a;\r\n}\r\n",
            "class Big {\r\n  int b;\r\n}\r\n",
            Instant.now(),
            "client",
            null);

    OriginalSource before = OriginalSource.of(diff, "text/plain");

    Document document = before.getLookup().lookup(Document.class);
    assertThat(document).as("a document the diff view takes as it is").isNotNull();
    assertThat(document.getText(0, document.getLength())).isEqualTo("class Big {\n  int a;\n}\n");
    assertThat(document.getProperty(DefaultEditorKit.EndOfLineStringProperty)).isEqualTo("\r\n");
    StringWriter read = new StringWriter();
    try (Reader reader = before.createReader()) {
      reader.transferTo(read);
    }
    assertThat(read.toString())
        .as("the text as on disk")
        .isEqualTo("class Big {\r\n  int a;\r\n}\r\n");
    assertThat(before.getName()).isEqualTo("Big.java");
    assertThat(before.getTitle()).isEqualTo("On disk: " + file);
    assertThat(before.isEditable()).isFalse();
  }
}
