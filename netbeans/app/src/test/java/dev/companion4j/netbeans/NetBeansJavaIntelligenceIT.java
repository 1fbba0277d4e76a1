package dev.companion4j.netbeans;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import junit.framework.Test;
import org.netbeans.api.java.classpath.ClassPath;
import org.netbeans.api.java.classpath.GlobalPathRegistry;
import org.netbeans.api.project.Project;
import org.netbeans.api.project.ProjectManager;
import org.netbeans.api.project.ui.OpenProjects;
import org.netbeans.junit.NbTestCase;
import org.openide.filesystems.FileUtil;
import org.openide.util.Lookup;

/**
 * NetBeans' Java support answering the questions behind the editor-intelligence tools, in the
 * booted platform, on a project of an interface, two implementations and two callers in another
 * package: definition, where-used, document and workspace symbols, callers and callees, super- and
 * subtypes, and the texts of a rename that is computed but not applied.
 */
public class NetBeansJavaIntelligenceIT extends NbTestCase {
  private static final Duration WAIT =
      Duration.ofSeconds(Long.getLong("companion4j.waitSeconds", 120));
  private static final Path BUILD = Path.of(System.getProperty("companion4j.buildDir"));
  private static final Path WORKSPACE = BUILD.resolve("workspace").resolve("intelligence");
  private static final Path SRC = WORKSPACE.resolve("src");
  private static final Path GREETER = SRC.resolve("shop/Greeter.java");
  private static final Path ENGLISH = SRC.resolve("shop/English.java");
  private static final Path FRENCH = SRC.resolve("shop/French.java");
  private static final Path MAIN = SRC.resolve("app/Main.java");
  private static final Path REPORT = SRC.resolve("app/Report.java");

  private static final Map<Path, String> FILES = new LinkedHashMap<>();

  static {
    FILES.put(
        GREETER,
        lines(
            "package shop;",
            "",
            "public interface Greeter {",
            "    String greet(String name);",
            "}"));
    FILES.put(ENGLISH, greeter("English", "Hello, "));
    FILES.put(FRENCH, greeter("French", "Bonjour, "));
    FILES.put(
        MAIN,
        lines(
            "package app;",
            "",
            "import shop.English;",
            "import shop.Greeter;",
            "",
            "public class Main {",
            "    public static void main(String[] args) {",
            "        Greeter greeter = new English();",
            "        System.out.println(welcome(greeter, \"Ada\"));",
            "    }",
            "",
            "    static String welcome(Greeter greeter, String name) {",
            "        return greeter.greet(name).trim();",
            "    }",
            "}"));
    FILES.put(
        REPORT,
        lines(
            "package app;",
            "",
            "import shop.Greeter;",
            "",
            "class Report {",
            "    String line(Greeter g) {",
            "        return \"> \" + g.greet(\"report\");",
            "    }",
            "}"));
  }

  private final List<String> timings = new ArrayList<>();

  public NetBeansJavaIntelligenceIT(String name) {
    super(name);
  }

  public static Test suite() {
    return Ui.platform(NetBeansJavaIntelligenceIT.class)
        .addTest("testJavaSupportAnswersEachQuestionOfTheIntelligenceTools")
        .suite();
  }

  public void testJavaSupportAnswersEachQuestionOfTheIntelligenceTools() throws Exception {
    for (Map.Entry<Path, String> f : FILES.entrySet()) {
      Files.createDirectories(f.getKey().getParent());
      Files.writeString(f.getKey(), f.getValue());
    }
    Files.writeString(WORKSPACE.resolve(TestProjectFactory.MARKER), "");
    Project project =
        ProjectManager.getDefault().findProject(FileUtil.toFileObject(WORKSPACE.toFile()));
    OpenProjects.getDefault().open(new Project[] {project}, false);
    // What a Java project does when it opens: its roots join the global registry, which NetBeans
    // indexes; the where-used, type search and subtypes read that index.
    ClassPath source =
        new TestClassPathProvider()
            .findClassPath(FileUtil.toFileObject(SRC.toFile()), ClassPath.SOURCE);
    GlobalPathRegistry.getDefault()
        .register(ClassPath.BOOT, new ClassPath[] {TestClassPathProvider.boot()});
    GlobalPathRegistry.getDefault().register(ClassPath.SOURCE, new ClassPath[] {source});
    timed("awaitScan", () -> ask("awaitScan", WAIT));
    Await.until(
        WAIT,
        Duration.ofMillis(500),
        () -> ask("workspaceSymbols", "Greeter"),
        s -> s.toString().contains("shop.Greeter"));

    int callLine = 13;
    int callColumn = column(MAIN, callLine, "greet(");
    assertEquals(24, callColumn);

    // Definition of a method call: the interface method's declaration, in another file.
    Object definition = timed("definition", () -> ask("definition", MAIN, callLine, callColumn));
    assertEquals(place(GREETER, 4, 12), definition.toString());

    // References across files, the declaration marked (and first).
    String references =
        timed("references", () -> ask("references", MAIN, callLine, callColumn)).toString();
    assertEquals(
        "[Reference[place="
            + place(GREETER, 4, 12)
            + ", declaration=true], "
            + "Reference[place="
            + place(MAIN, 13, 24)
            + ", declaration=false], "
            + "Reference[place="
            + place(REPORT, 7, 25)
            + ", declaration=false]]",
        sortedTail(references));

    // Workspace symbols by part of a class name, in any case.
    String symbols = timed("workspaceSymbols", () -> ask("workspaceSymbols", "ngli")).toString();
    assertEquals(
        List.of(symbol("shop.English", "class", place(ENGLISH, 3, 14))).toString(), symbols);

    // Document symbols: the class and its methods, at their names.
    String outline = timed("documentSymbols", () -> ask("documentSymbols", MAIN)).toString();
    assertEquals(
        List.of(
                symbol("app.Main", "class", place(MAIN, 6, 14)),
                symbol("app.Main.main", "method", place(MAIN, 7, 24)),
                symbol("app.Main.welcome", "method", place(MAIN, 12, 19)))
            .toString(),
        outline);

    // Incoming calls of the interface method: each caller with its call site.
    String incoming = timed("incomingCalls", () -> ask("incomingCalls", GREETER, 4, 12)).toString();
    assertTrue(incoming, incoming.contains(call("app.Main.welcome", place(MAIN, 13, 24))));
    assertTrue(incoming, incoming.contains(call("app.Report.line", place(REPORT, 7, 25))));

    // Outgoing calls of welcome, in the order written.
    String outgoing = timed("outgoingCalls", () -> ask("outgoingCalls", MAIN, 12, 19)).toString();
    assertEquals(
        List.of(
                call("shop.Greeter.greet", place(MAIN, 13, 24)),
                call("java.lang.String.trim", place(MAIN, 13, 36)))
            .toString(),
        outgoing);

    // The IDE's own call hierarchy (api.lsp, as its Call Hierarchy window): both callers at the
    // called name, from a call site and from the declaration; the callees without their class,
    // their sites at the start of the whole expression. It answers nothing now and then (see
    // JavaIntelligence.ideCalls), so each is awaited.
    String ideIncoming = ideCalls(MAIN, callLine, callColumn, true);
    assertTrue(
        ideIncoming,
        ideIncoming.contains(call("welcome(Greeter greeter, String name)", place(MAIN, 13, 24))));
    assertTrue(ideIncoming, ideIncoming.contains(call("line(Greeter g)", place(REPORT, 7, 25))));
    String fromDeclaration = ideCalls(GREETER, 4, 12, true);
    assertTrue(
        fromDeclaration, fromDeclaration.contains(call("line(Greeter g)", place(REPORT, 7, 25))));
    assertTrue(
        fromDeclaration,
        fromDeclaration.contains(
            call("welcome(Greeter greeter, String name)", place(MAIN, 13, 24))));
    assertEquals(
        List.of(
                call("trim()", place(MAIN, 13, 16)),
                call("greet(String name)", place(MAIN, 13, 16)))
            .toString(),
        ideCalls(MAIN, 12, 19, false));

    // Supertypes of an implementation; subtypes of the interface.
    String supers = timed("supertypes", () -> ask("supertypes", ENGLISH, 3, 14)).toString();
    assertEquals(
        List.of(
                symbol("java.lang.Object", "class", "null"),
                symbol("shop.Greeter", "interface", place(GREETER, 3, 18)))
            .toString(),
        supers);
    String subs = timed("subtypes", () -> ask("subtypes", GREETER, 3, 18)).toString();
    assertEquals(
        List.of(
                symbol("shop.English", "class", place(ENGLISH, 3, 14)),
                symbol("shop.French", "class", place(FRENCH, 3, 14)))
            .toString(),
        subs);

    // Rename: every file NetBeans would change (the overriding methods too), with its new text;
    // nothing is written.
    List<?> edits =
        (List<?>) timed("rename", () -> ask("rename", MAIN, callLine, callColumn, "salute"));
    Map<String, String> expected = new LinkedHashMap<>();
    FILES.forEach((path, text) -> expected.put(path.toString(), text.replace("greet(", "salute(")));
    Map<String, String> actual = new LinkedHashMap<>();
    for (Object edit : edits) {
      actual.put(String.valueOf(component(edit, "path")), (String) component(edit, "newText"));
    }
    assertEquals(new java.util.TreeMap<>(expected), new java.util.TreeMap<>(actual));
    for (Map.Entry<Path, String> f : FILES.entrySet()) {
      assertEquals(f.getKey().toString(), f.getValue(), Files.readString(f.getKey()));
    }

    // A class rename: text edits of the class and of its users only; the file's own rename
    // (English.java to British.java) is not among them.
    Map<String, String> classRename = new java.util.TreeMap<>();
    for (Object edit : (List<?>) ask("rename", ENGLISH, 3, 14, "British")) {
      classRename.put(String.valueOf(component(edit, "path")), (String) component(edit, "newText"));
    }
    assertEquals(
        new java.util.TreeMap<>(
            Map.of(
                ENGLISH.toString(),
                FILES.get(ENGLISH).replace("class English", "class British"),
                MAIN.toString(),
                FILES.get(MAIN).replace("English", "British"))),
        classRename);

    // A name that is not a Java identifier is refused before any change.
    try {
      ask("rename", MAIN, callLine, callColumn, "not a name");
      fail("an invalid name was accepted");
    } catch (IllegalArgumentException expectedRefusal) {
      assertTrue(
          expectedRefusal.getMessage(),
          expectedRefusal.getMessage().contains("is not a valid Java identifier"));
    }

    // A position outside the file is refused, not answered with nothing.
    try {
      ask("definition", MAIN, 99, 1);
      fail("a line past the end was answered");
    } catch (IllegalArgumentException expectedRefusal) {
      assertTrue(
          expectedRefusal.getMessage(), expectedRefusal.getMessage().contains("outside the file"));
    }

    // The editor's unsaved text is what NetBeans answers from: a line added above the call in
    // Report, not saved, moves its reference one line down.
    javax.swing.JEditorPane report = Ui.openInEditor(REPORT);
    Edt.call(
        () -> {
          report.getDocument().insertString(0, "// not saved\n", null);
          return null;
        });
    String moved = ask("references", MAIN, callLine, callColumn).toString();
    assertTrue(
        moved,
        moved.contains(
            "Report.java, line=8, column=25, text=" + FILES.get(REPORT).split("\n")[6] + "]"));
    assertEquals(FILES.get(REPORT), Files.readString(REPORT));
    Files.write(BUILD.resolve("intelligence-timings.txt"), timings);
  }

  /** The IDE call hierarchy's first non-empty answer, with how many tries it took. */
  private String ideCalls(Path file, int line, int column, boolean incoming) throws Exception {
    int[] tries = {0};
    long start = System.nanoTime();
    String answer =
        Await.until(
                WAIT,
                Duration.ofMillis(200),
                () -> {
                  tries[0]++;
                  return ask("ideCalls", file, line, column, incoming, WAIT);
                },
                r -> !((List<?>) r).isEmpty())
            .toString();
    timings.add(
        "ideCalls "
            + (incoming ? "incoming" : "outgoing")
            + " from "
            + file.getFileName()
            + ":"
            + line
            + ": "
            + tries[0]
            + " tries, "
            + (System.nanoTime() - start) / 1_000_000
            + " ms");
    return answer;
  }

  private interface Call {
    Object call() throws Exception;
  }

  /** Runs {@code call} twice (cold, then warm) and notes both times. */
  private Object timed(String what, Call call) throws Exception {
    long start = System.nanoTime();
    Object first = call.call();
    long cold = (System.nanoTime() - start) / 1_000_000;
    start = System.nanoTime();
    call.call();
    long warm = (System.nanoTime() - start) / 1_000_000;
    timings.add(what + ": " + cold + " ms cold, " + warm + " ms warm");
    return first;
  }

  /** Calls JavaIntelligence: package-private, in its own module's class loader. */
  private static Object ask(String method, Object... args) throws Exception {
    Class<?> intelligence =
        Lookup.getDefault()
            .lookup(ClassLoader.class)
            .loadClass("dev.companion4j.netbeans.java.JavaIntelligence");
    for (Method m : intelligence.getDeclaredMethods()) {
      if (m.getName().equals(method) && m.getParameterCount() == args.length) {
        m.setAccessible(true);
        try {
          return m.invoke(null, args);
        } catch (InvocationTargetException e) {
          throw e.getCause() instanceof Exception cause ? cause : e;
        }
      }
    }
    throw new AssertionError("no method " + method);
  }

  private static Object component(Object record, String name) throws Exception {
    Method accessor = record.getClass().getDeclaredMethod(name);
    accessor.setAccessible(true);
    return accessor.invoke(record);
  }

  private static String place(Path file, int line, int column) {
    return "Place[path="
        + file
        + ", line="
        + line
        + ", column="
        + column
        + ", text="
        + FILES.get(file).split("\n")[line - 1]
        + "]";
  }

  private static String symbol(String name, String kind, String place) {
    return "Symbol[name=" + name + ", kind=" + kind + ", place=" + place + "]";
  }

  private static String call(String symbol, String site) {
    return "Call[symbol=" + symbol + ", site=" + site + "]";
  }

  private static int column(Path file, int line, String part) {
    return FILES.get(file).split("\n")[line - 1].indexOf(part) + 1;
  }

  /** The list's first entry, then the rest in path order: the query's order is not the point. */
  private static String sortedTail(String list) {
    String[] entries = list.substring(1, list.length() - 1).split(", (?=Reference\\[)");
    java.util.Arrays.sort(entries, 1, entries.length);
    return "[" + String.join(", ", entries) + "]";
  }

  private static String greeter(String name, String greeting) {
    return lines(
        "package shop;",
        "",
        "public class " + name + " implements Greeter {",
        "    @Override",
        "    public String greet(String name) {",
        "        return \"" + greeting + "\" + name;",
        "    }",
        "}");
  }

  private static String lines(String... lines) {
    return String.join("\n", lines) + "\n";
  }
}
