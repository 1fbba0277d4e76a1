package dev.companion4j.netbeans.java;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.swing.text.BadLocationException;
import javax.swing.text.StyledDocument;
import org.netbeans.api.java.classpath.ClassPath;
import org.netbeans.api.java.classpath.GlobalPathRegistry;
import org.netbeans.api.java.source.ClassIndex;
import org.netbeans.api.java.source.ClasspathInfo;
import org.netbeans.api.java.source.CompilationController;
import org.netbeans.api.java.source.CompilationInfo;
import org.netbeans.api.java.source.ElementHandle;
import org.netbeans.api.java.source.JavaSource;
import org.netbeans.api.java.source.ModificationResult;
import org.netbeans.api.java.source.SourceUtils;
import org.netbeans.api.java.source.TreePathHandle;
import org.netbeans.modules.refactoring.api.Problem;
import org.netbeans.modules.refactoring.api.RefactoringElement;
import org.netbeans.modules.refactoring.api.RefactoringSession;
import org.netbeans.modules.refactoring.api.RenameRefactoring;
import org.netbeans.modules.refactoring.api.WhereUsedQuery;
import org.openide.filesystems.FileObject;
import org.openide.filesystems.FileUtil;
import org.openide.text.PositionRef;
import org.openide.util.lookup.Lookups;

/**
 * What NetBeans' Java support answers about a symbol: its declaration, its references (the IDE's
 * where-used), the symbols of a file and of the open source roots, callers and callees, super- and
 * subtypes, and the texts its rename refactoring would give every affected file, without applying
 * them. Positions are 1-based lines and columns counted in code points, each with its line's text.
 * Every method blocks on the parser: call it off the EDT. A question it cannot answer (not a Java
 * file, no symbol at the position, a position outside the file) throws {@link
 * IllegalArgumentException} with a sentence saying why.
 */
final class JavaIntelligence {
  private JavaIntelligence() {}

  /** A position in a file: 1-based line and column, and the text of that line. */
  record Place(Path path, int line, int column, String text) {}

  record Reference(Place place, boolean declaration) {}

  /** A declared symbol; {@code place} is null when it has no source (a JDK class). */
  record Symbol(String name, String kind, Place place) {}

  /** A call: the caller (incoming) or callee (outgoing), and where the call is written. */
  record Call(String symbol, String kind, Place site) {}

  record FileEdit(Path path, String newText) {}

  /**
   * Waits, at most {@code wait}, until NetBeans has indexed the registered source roots: the
   * where-used, type search and subtypes read the index, and answer nothing before it exists.
   */
  static void awaitScan(Duration wait) throws Exception {
    if (!SourceUtils.isScanInProgress()) {
      return;
    }
    JavaSource any =
        JavaSource.create(ClasspathInfo.create(ClassPath.EMPTY, ClassPath.EMPTY, ClassPath.EMPTY));
    any.runWhenScanFinished(cc -> {}, true).get(wait.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The symbol at the position, where it is declared; its place is null without source. */
  static Symbol definition(Path file, int line, int column) throws IOException {
    return read(
        file,
        cc -> {
          Element e = elementAt(cc, file, line, column);
          return new Symbol(qualified(e), kind(e), declaration(cc, e));
        });
  }

  /** The IDE's where-used of the symbol at the position, its declaration first and marked. */
  static List<Reference> references(Path file, int line, int column) throws IOException {
    Place declaration = definition(file, line, column).place();
    List<Reference> found = new ArrayList<>();
    if (declaration != null) {
      found.add(new Reference(declaration, true));
    }
    for (Place p : whereUsed(file, line, column)) {
      if (!p.equals(declaration)) {
        found.add(new Reference(p, false));
      }
    }
    return found;
  }

  static List<Symbol> documentSymbols(Path file) throws IOException {
    return read(
        file,
        cc -> {
          List<Symbol> symbols = new ArrayList<>();
          new TreePathScanner<Void, Void>() {
            @Override
            public Void visitClass(ClassTree node, Void unused) {
              add(getCurrentPath());
              return super.visitClass(node, unused);
            }

            @Override
            public Void visitMethod(MethodTree node, Void unused) {
              add(getCurrentPath());
              return null;
            }

            @Override
            public Void visitVariable(VariableTree node, Void unused) {
              add(getCurrentPath());
              return null;
            }

            private void add(TreePath path) {
              Element e = cc.getTrees().getElement(path);
              if (e != null && !cc.getTreeUtilities().isSynthetic(path)) {
                symbols.add(
                    new Symbol(
                        qualified(e), kind(e), place(cc, file, nameStart(cc, path.getLeaf()))));
              }
            }
          }.scan(cc.getCompilationUnit(), null);
          return symbols;
        });
  }

  /**
   * Classes, interfaces, enums and records of the registered source roots whose name holds {@code
   * query}.
   */
  static List<Symbol> workspaceSymbols(String query) throws IOException {
    List<Symbol> symbols = new ArrayList<>();
    for (FileObject root : GlobalPathRegistry.getDefault().getSourceRoots()) {
      ClasspathInfo cp = ClasspathInfo.create(root);
      Set<ElementHandle<TypeElement>> types =
          cp.getClassIndex()
              .getDeclaredTypes(
                  ".*" + literal(query) + ".*",
                  ClassIndex.NameKind.CASE_INSENSITIVE_REGEXP,
                  EnumSet.of(ClassIndex.SearchScope.SOURCE));
      for (ElementHandle<TypeElement> type : types) {
        symbols.add(new Symbol(type.getQualifiedName(), kind(type.getKind()), locate(cp, type)));
      }
    }
    symbols.sort(Comparator.comparing(Symbol::name));
    return symbols;
  }

  /**
   * Who calls the method at the position: each where-used site with the method it is written in.
   */
  static List<Call> incomingCalls(Path file, int line, int column) throws IOException {
    List<Call> calls = new ArrayList<>();
    for (Place site : whereUsed(file, line, column)) {
      Call caller =
          read(
              site.path(),
              cc -> {
                TreePath path =
                    cc.getTreeUtilities()
                        .pathFor(offset(cc.getText(), site.line(), site.column()) + 1);
                while (path != null
                    && path.getLeaf().getKind() != Tree.Kind.METHOD
                    && path.getLeaf().getKind() != Tree.Kind.CLASS) {
                  path = path.getParentPath();
                }
                Element e = path == null ? null : cc.getTrees().getElement(path);
                return e == null
                    ? new Call(null, null, site)
                    : new Call(qualified(e), kind(e), site);
              });
      calls.add(caller);
    }
    return calls;
  }

  /** What the method at the position calls, in the order written. */
  static List<Call> outgoingCalls(Path file, int line, int column) throws IOException {
    Place declaration = definition(file, line, column).place();
    if (declaration == null) {
      throw new IllegalArgumentException(
          "the method at " + file + ":" + line + ":" + column + " has no source to read its calls");
    }
    return read(
        declaration.path(),
        cc -> {
          TreePath method =
              cc.getTreeUtilities()
                  .pathFor(offset(cc.getText(), declaration.line(), declaration.column()) + 1);
          while (method != null && method.getLeaf().getKind() != Tree.Kind.METHOD) {
            method = method.getParentPath();
          }
          List<Call> calls = new ArrayList<>();
          if (method == null) {
            return calls;
          }
          new TreePathScanner<Void, Void>() {
            @Override
            public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
              Element callee = cc.getTrees().getElement(getCurrentPath());
              if (callee != null) {
                calls.add(
                    new Call(
                        qualified(callee),
                        kind(callee),
                        place(cc, declaration.path(), nameStart(cc, node.getMethodSelect()))));
              }
              return super.visitMethodInvocation(node, unused);
            }
          }.scan(method, null);
          // The scan meets a.b().c() outside-in: c first.
          calls.sort(
              Comparator.comparingInt((Call c) -> c.site().line())
                  .thenComparingInt(c -> c.site().column()));
          return calls;
        });
  }

  /** The direct supertypes of the type at the position (or of the type enclosing it). */
  static List<Symbol> supertypes(Path file, int line, int column) throws IOException {
    return read(
        file,
        cc -> {
          TypeElement type = typeOf(elementAt(cc, file, line, column));
          List<Symbol> supers = new ArrayList<>();
          for (TypeMirror t : cc.getTypes().directSupertypes(type.asType())) {
            if (t.getKind() == TypeKind.DECLARED) {
              Element e = ((DeclaredType) t).asElement();
              supers.add(
                  new Symbol(
                      qualified(e),
                      kind(e),
                      locate(cc.getClasspathInfo(), ElementHandle.create(e))));
            }
          }
          return supers;
        });
  }

  /** The direct subtypes (implementors) of the type at the position, from the index. */
  static List<Symbol> subtypes(Path file, int line, int column) throws IOException {
    AtomicReference<ClasspathInfo> cp = new AtomicReference<>();
    ElementHandle<TypeElement> type =
        read(
            file,
            cc -> {
              cp.set(cc.getClasspathInfo());
              return ElementHandle.create(typeOf(elementAt(cc, file, line, column)));
            });
    List<Symbol> subs = new ArrayList<>();
    for (ElementHandle<TypeElement> sub :
        cp.get()
            .getClassIndex()
            .getElements(
                type,
                EnumSet.of(ClassIndex.SearchKind.IMPLEMENTORS),
                EnumSet.of(ClassIndex.SearchScope.SOURCE))) {
      subs.add(new Symbol(sub.getQualifiedName(), kind(sub.getKind()), locate(cp.get(), sub)));
    }
    subs.sort(Comparator.comparing(Symbol::name));
    return subs;
  }

  /**
   * The new text of every file NetBeans' rename of the symbol at the position would change,
   * computed from the refactoring's differences and applied to copies of the texts only.
   */
  static List<FileEdit> rename(Path file, int line, int column, String newName) throws IOException {
    TreePathHandle target =
        read(
            file,
            cc -> {
              refuseFileMoves(cc, elementAt(cc, file, line, column));
              return handleAt(cc, line, column);
            });
    RenameRefactoring rename = new RenameRefactoring(Lookups.singleton(target));
    rename.setNewName(newName);
    failOnFatal(rename.preCheck());
    failOnFatal(rename.checkParameters());
    failOnFatal(rename.fastCheckParameters());
    RefactoringSession session = RefactoringSession.create("Rename to " + newName);
    failOnFatal(rename.prepare(session));
    Map<FileObject, List<ModificationResult.Difference>> byFile = new LinkedHashMap<>();
    Map<FileObject, String> texts = new LinkedHashMap<>();
    for (RefactoringElement element : session.getRefactoringElements()) {
      ModificationResult.Difference diff =
          element.getLookup().lookup(ModificationResult.Difference.class);
      if (diff == null) {
        throw new IllegalStateException(
            "a change that is not a text edit: " + element.getDisplayText());
      }
      byFile.computeIfAbsent(element.getParentFile(), f -> new ArrayList<>()).add(diff);
      if (!texts.containsKey(element.getParentFile())) {
        texts.put(element.getParentFile(), documentText(element.getPosition().getBegin()));
      }
    }
    List<FileEdit> edits = new ArrayList<>();
    for (Map.Entry<FileObject, List<ModificationResult.Difference>> e : byFile.entrySet()) {
      List<ModificationResult.Difference> diffs = e.getValue();
      diffs.sort(
          Comparator.comparingInt(
                  (ModificationResult.Difference d) -> d.getStartPosition().getOffset())
              .reversed());
      StringBuilder text = new StringBuilder(texts.get(e.getKey()));
      for (ModificationResult.Difference d : diffs) {
        String inserted = d.getNewText() == null ? "" : d.getNewText();
        text.replace(d.getStartPosition().getOffset(), d.getEndPosition().getOffset(), inserted);
      }
      edits.add(new FileEdit(FileUtil.toFile(e.getKey()).toPath(), text.toString()));
    }
    return edits;
  }

  /** The where-used query's answer for the symbol at the position, in the query's order. */
  private static List<Place> whereUsed(Path file, int line, int column) throws IOException {
    WhereUsedQuery query = new WhereUsedQuery(Lookups.singleton(handleAt(file, line, column)));
    query.putValue(WhereUsedQuery.FIND_REFERENCES, true);
    RefactoringSession session = RefactoringSession.create("Find usages");
    failOnFatal(query.preCheck());
    failOnFatal(query.prepare(session));
    List<Place> places = new ArrayList<>();
    for (RefactoringElement element : session.getRefactoringElements()) {
      PositionRef begin = element.getPosition().getBegin();
      places.add(
          place(
              documentText(begin),
              FileUtil.toFile(element.getParentFile()).toPath(),
              begin.getOffset()));
    }
    return places;
  }

  private static TreePathHandle handleAt(Path file, int line, int column) throws IOException {
    return read(
        file,
        cc -> {
          elementAt(cc, file, line, column);
          return handleAt(cc, line, column);
        });
  }

  private static TreePathHandle handleAt(CompilationInfo cc, int line, int column) {
    return TreePathHandle.create(
        cc.getTreeUtilities().pathFor(offset(cc.getText(), line, column) + 1), cc);
  }

  /**
   * Refuses a rename NetBeans would complete by renaming or moving files (a package, a top-level
   * class named as its file): the refactoring's elements hold only its text edits, so a change
   * built from them would leave a public class in a file of the wrong name.
   */
  private static void refuseFileMoves(CompilationInfo cc, Element e) {
    if (e.getKind() == ElementKind.PACKAGE) {
      throw new IllegalArgumentException(
          "renaming package "
              + e
              + " moves its files, which a reviewed change of texts cannot hold: use Refactor >"
              + " Rename in NetBeans");
    }
    Element type = e.getKind() == ElementKind.CONSTRUCTOR ? e.getEnclosingElement() : e;
    if (type instanceof TypeElement t
        && t.getEnclosingElement().getKind() == ElementKind.PACKAGE
        && cc.getFileObject().getName().contentEquals(t.getSimpleName())) {
      throw new IllegalArgumentException(
          "renaming "
              + kind(t)
              + " "
              + t.getQualifiedName()
              + " also renames its file "
              + cc.getFileObject().getNameExt()
              + ", which a reviewed change of texts cannot hold: use Refactor > Rename in"
              + " NetBeans");
    }
  }

  private interface Question<T> {
    T ask(CompilationController cc) throws IOException;
  }

  /** Runs {@code question} on the resolved parse of {@code file} (the editor's text when open). */
  private static <T> T read(Path file, Question<T> question) throws IOException {
    FileObject fo = FileUtil.toFileObject(FileUtil.normalizeFile(file.toFile()));
    JavaSource source =
        fo == null || !"text/x-java".equals(fo.getMIMEType()) ? null : JavaSource.forFileObject(fo);
    if (source == null) {
      throw new IllegalArgumentException(
          "NetBeans answers questions about code in Java files only; " + file + " is not one");
    }
    AtomicReference<T> answer = new AtomicReference<>();
    source.runUserActionTask(
        cc -> {
          cc.toPhase(JavaSource.Phase.RESOLVED);
          answer.set(question.ask(cc));
        },
        true);
    return answer.get();
  }

  /** The symbol at the 1-based position: the character at that column belongs to its name. */
  private static Element elementAt(CompilationInfo cc, Path file, int line, int column) {
    int offset = offset(cc.getText(), line, column);
    Element e = cc.getTrees().getElement(cc.getTreeUtilities().pathFor(offset + 1));
    if (e == null) {
      throw new IllegalArgumentException("no symbol at " + file + ":" + line + ":" + column);
    }
    return e;
  }

  /** Where {@code e} is declared: in this parse when it is, else in the source the index names. */
  private static Place declaration(CompilationInfo cc, Element e) throws IOException {
    TreePath here = cc.getTrees().getPath(e);
    if (here != null && here.getCompilationUnit() == cc.getCompilationUnit()) {
      return place(cc, FileUtil.toFile(cc.getFileObject()).toPath(), nameStart(cc, here.getLeaf()));
    }
    return locate(cc.getClasspathInfo(), ElementHandle.create(e));
  }

  private static Place locate(ClasspathInfo cp, ElementHandle<? extends Element> handle)
      throws IOException {
    FileObject source = SourceUtils.getFile(handle, cp);
    if (source == null) {
      return null;
    }
    Path path = FileUtil.toFile(source).toPath();
    return read(
        path,
        cc -> {
          Element e = handle.resolve(cc);
          TreePath tree = e == null ? null : cc.getTrees().getPath(e);
          return tree == null ? null : place(cc, path, nameStart(cc, tree.getLeaf()));
        });
  }

  private static int nameStart(CompilationInfo cc, Tree tree) {
    int[] span = null;
    if (tree instanceof ClassTree c) {
      span = cc.getTreeUtilities().findNameSpan(c);
    } else if (tree instanceof MethodTree m) {
      span = cc.getTreeUtilities().findNameSpan(m);
    } else if (tree instanceof VariableTree v) {
      span = cc.getTreeUtilities().findNameSpan(v);
    } else if (tree instanceof MemberSelectTree s) {
      span = cc.getTreeUtilities().findNameSpan(s);
    }
    CompilationUnitTree unit = cc.getCompilationUnit();
    return span != null
        ? span[0]
        : (int) cc.getTrees().getSourcePositions().getStartPosition(unit, tree);
  }

  /**
   * {@code text} as a regular expression matching itself. Not Pattern.quote: the index lower-cases
   * a case-insensitive pattern, which turns its \\Q...\\E into invalid escapes.
   */
  private static String literal(String text) {
    StringBuilder pattern = new StringBuilder();
    text.codePoints()
        .forEach(
            c -> {
              if (!Character.isLetterOrDigit(c)) {
                pattern.append('\\');
              }
              pattern.appendCodePoint(c);
            });
    return pattern.toString();
  }

  private static TypeElement typeOf(Element e) {
    for (Element x = e; x != null; x = x.getEnclosingElement()) {
      if (x instanceof TypeElement t) {
        return t;
      }
    }
    throw new IllegalArgumentException("no type at the position: " + e);
  }

  private static String qualified(Element e) {
    if (e instanceof TypeElement t) {
      return t.getQualifiedName().toString();
    }
    Element owner = e.getEnclosingElement();
    String name =
        e.getKind() == ElementKind.CONSTRUCTOR
            ? owner.getSimpleName().toString()
            : e.getSimpleName().toString();
    return (owner instanceof TypeElement t ? t.getQualifiedName() + "." : "") + name;
  }

  private static String kind(Element e) {
    return kind(e.getKind());
  }

  private static String kind(ElementKind kind) {
    return kind.name().toLowerCase(java.util.Locale.ROOT);
  }

  private static void failOnFatal(Problem problem) {
    for (Problem p = problem; p != null; p = p.getNext()) {
      if (p.isFatal()) {
        throw new IllegalArgumentException(p.getMessage());
      }
    }
  }

  /** The text the position's offsets count in: the document's, whose line ends are "\n". */
  private static String documentText(PositionRef ref) throws IOException {
    return documentText(ref.getCloneableEditorSupport().openDocument());
  }

  private static String documentText(StyledDocument doc) {
    AtomicReference<String> text = new AtomicReference<>();
    doc.render(
        () -> {
          try {
            text.set(doc.getText(0, doc.getLength()));
          } catch (BadLocationException e) {
            throw new IllegalStateException(e);
          }
        });
    return text.get();
  }

  private static Place place(CompilationInfo cc, Path path, int offset) {
    return place(cc.getText(), path, offset);
  }

  /** The place of a document offset (UTF-16), its column counted in code points. */
  static Place place(String text, Path path, int offset) {
    int lineStart = text.lastIndexOf('\n', offset - 1) + 1;
    int lineEnd = text.indexOf('\n', offset);
    int line = 1;
    for (int i = text.indexOf('\n'); i >= 0 && i < lineStart; i = text.indexOf('\n', i + 1)) {
      line++;
    }
    String lineText = text.substring(lineStart, lineEnd < 0 ? text.length() : lineEnd);
    return new Place(
        path, line, text.codePointCount(lineStart, offset) + 1, lineText.replace("\r", ""));
  }

  /**
   * The document offset (UTF-16) of a 1-based line and column in code points; a position outside
   * the text is refused.
   */
  static int offset(String text, int line, int column) {
    int start = 0;
    for (int l = 1; l < line; l++) {
      int newline = text.indexOf('\n', start);
      if (newline < 0) {
        throw new IllegalArgumentException(
            "line " + line + " is outside the file (" + l + " lines)");
      }
      start = newline + 1;
    }
    int end = text.indexOf('\n', start);
    int length = text.codePointCount(start, end < 0 ? text.length() : end);
    if (line < 1 || column < 1 || column > length + 1) {
      throw new IllegalArgumentException(
          "line " + line + ", column " + column + " is outside the file");
    }
    return text.offsetByCodePoints(start, column - 1);
  }
}
