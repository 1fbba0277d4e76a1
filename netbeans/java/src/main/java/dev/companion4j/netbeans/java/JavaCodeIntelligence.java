package dev.companion4j.netbeans.java;

import dev.companion4j.engine.CodeQuery;
import dev.companion4j.engine.CodeResult;
import dev.companion4j.engine.HostActionException;
import dev.companion4j.netbeans.java.JavaIntelligence.Call;
import dev.companion4j.netbeans.java.JavaIntelligence.FileEdit;
import dev.companion4j.netbeans.java.JavaIntelligence.Place;
import dev.companion4j.netbeans.java.JavaIntelligence.Symbol;
import dev.companion4j.netbeans.spi.CodeIntelligence;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.netbeans.api.java.classpath.ClassPath;
import org.netbeans.modules.parsing.api.indexing.IndexingManager;
import org.openide.filesystems.FileObject;
import org.openide.filesystems.FileUtil;
import org.openide.util.RequestProcessor;
import org.openide.util.lookup.ServiceProvider;

/** The companion's questions about Java code, answered by {@link JavaIntelligence}. */
@ServiceProvider(service = CodeIntelligence.class)
public final class JavaCodeIntelligence implements CodeIntelligence {
  private static final Logger LOG = Logger.getLogger(JavaCodeIntelligence.class.getName());

  /**
   * How long a question waits for NetBeans to finish indexing: index-backed answers (where-used,
   * type search, subtypes) given earlier would miss what is not indexed yet. Below the asker's
   * bound, so that it hears why.
   */
  private static final Duration INDEX_WAIT = Duration.ofSeconds(20);

  private static final RequestProcessor INDEXING =
      new RequestProcessor(JavaCodeIntelligence.class.getName(), 1);

  @Override
  public List<CodeResult> find(CodeQuery query) throws HostActionException {
    return answer(() -> ask(query));
  }

  private static List<CodeResult> ask(CodeQuery query) throws Exception {
    if (query instanceof CodeQuery.DocumentSymbols d) {
      return symbols(JavaIntelligence.documentSymbols(d.path()));
    }
    if (query instanceof CodeQuery.WorkspaceSymbols w) {
      awaitIndex();
      return symbols(JavaIntelligence.workspaceSymbols(w.query()));
    }
    if (query instanceof CodeQuery.Definition d) {
      Symbol s = JavaIntelligence.definition(d.at().path(), d.at().line(), d.at().character());
      return List.of(result(s.name(), s.kind(), s.place(), true));
    }
    if (query instanceof CodeQuery.References r) {
      awaitIndex();
      return JavaIntelligence.references(r.at().path(), r.at().line(), r.at().character()).stream()
          .map(ref -> result(null, null, ref.place(), ref.declaration()))
          .toList();
    }
    if (query instanceof CodeQuery.CallHierarchy c) {
      CodeQuery.Position at = c.at();
      List<Call> calls;
      if (c.incoming()) {
        awaitIndex();
        calls = JavaIntelligence.incomingCalls(at.path(), at.line(), at.character());
      } else {
        calls = JavaIntelligence.outgoingCalls(at.path(), at.line(), at.character());
      }
      return calls.stream()
          .map(call -> result(call.symbol(), call.kind(), call.site(), false))
          .toList();
    }
    if (query instanceof CodeQuery.TypeHierarchy t) {
      CodeQuery.Position at = t.at();
      if (t.supertypes()) {
        return symbols(JavaIntelligence.supertypes(at.path(), at.line(), at.character()));
      }
      awaitIndex();
      return symbols(JavaIntelligence.subtypes(at.path(), at.line(), at.character()));
    }
    throw new IllegalArgumentException("NetBeans answers a rename with its edits, not with places");
  }

  @Override
  public Map<Path, String> renameEdits(CodeQuery.Rename rename) throws HostActionException {
    return answer(
        () -> {
          awaitIndex();
          Map<Path, String> texts = new LinkedHashMap<>();
          for (FileEdit edit :
              JavaIntelligence.rename(
                  rename.at().path(),
                  rename.at().line(),
                  rename.at().character(),
                  rename.newName())) {
            texts.put(edit.path(), edit.newText());
          }
          if (texts.isEmpty()) {
            throw new IllegalArgumentException("NetBeans' rename changes no file");
          }
          return texts;
        });
  }

  @Override
  public void written(Set<Path> files) {
    Map<FileObject, List<URL>> byRoot = new LinkedHashMap<>();
    for (Path file : files) {
      FileObject fo = FileUtil.toFileObject(FileUtil.normalizeFile(file.toFile()));
      ClassPath source = fo == null ? null : ClassPath.getClassPath(fo, ClassPath.SOURCE);
      FileObject root = source == null ? null : source.findOwnerRoot(fo);
      if (root != null) {
        byRoot.computeIfAbsent(root, r -> new ArrayList<>()).add(fo.toURL());
      }
    }
    // Waiting for the index must not take a lock or the EDT: on a processor of its own, bounded.
    RequestProcessor.Task refresh =
        INDEXING.post(
            () ->
                byRoot.forEach(
                    (root, urls) ->
                        IndexingManager.getDefault().refreshIndexAndWait(root.toURL(), urls)));
    try {
      if (!refresh.waitFinished(INDEX_WAIT.toMillis())) {
        LOG.info("NetBeans had not indexed the renamed files within " + INDEX_WAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private interface Question<T> {
    T ask() throws Exception;
  }

  /** Runs {@code question}; every way it cannot answer becomes a sentence for the asker. */
  private static <T> T answer(Question<T> question) throws HostActionException {
    try {
      return question.ask();
    } catch (IllegalArgumentException e) {
      throw new HostActionException(e.getMessage());
    } catch (TimeoutException e) {
      throw new HostActionException(
          "NetBeans is still indexing the project; ask again in a moment");
    } catch (Exception e) {
      LOG.log(Level.WARNING, "NetBeans' Java support failed to answer", e);
      throw new HostActionException(
          "NetBeans' Java support failed to answer (" + e.getClass().getSimpleName() + ")");
    }
  }

  private static void awaitIndex() throws Exception {
    JavaIntelligence.awaitScan(INDEX_WAIT);
  }

  private static List<CodeResult> symbols(List<Symbol> symbols) {
    return symbols.stream().map(s -> result(s.name(), s.kind(), s.place(), false)).toList();
  }

  private static CodeResult result(String name, String kind, Place place, boolean declaration) {
    return place == null
        ? new CodeResult(name, kind, null, 0, 0, "", declaration)
        : new CodeResult(
            name, kind, place.path(), place.line(), place.column(), place.text(), declaration);
  }
}
