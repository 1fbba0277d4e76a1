package dev.companion4j.eclipse;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import org.awaitility.Awaitility;

/**
 * The test's side of the widget probe (eclipse/app/src/test/probe): a bundle a test adds to the
 * Eclipse it starts, which reports what the workbench's widgets show and presses them. A test
 * passes {@link #variables} to scripts/run-eclipse.sh, then {@link #await}s the probe and asks it:
 * {@link #widgets()}, {@link #find}, {@link #press} (by the widget's {@code name} data or its text:
 * a status line item, a button of a dialog, a table row, a tool bar item such as "Accept"), {@link
 * #setText}, {@link #exec} (a workbench command). Each widget comes with its bounds on the screen,
 * for a {@link ScreenUser} click where a real mouse is wanted.
 */
final class WorkbenchProbe {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final String PROBE = "dev/companion4j/eclipse/probe/Probe";

  private final int port;
  private final String token;

  /**
   * A widget as the probe saw it.
   *
   * @param name its {@code name} data, or empty
   * @param type its class's simple name ({@code CLabel}, {@code Button}, {@code ToolItem}, …)
   * @param text its text, or empty
   * @param tooltip its tooltip, or empty
   * @param x its left edge on the screen
   * @param y its top edge on the screen
   * @param width its width
   * @param height its height
   * @param state a table's rows (one a line), a check box's {@code checked}/{@code unchecked}
   */
  record Widget(
      String name,
      String type,
      String text,
      String tooltip,
      int x,
      int y,
      int width,
      int height,
      String state) {}

  private WorkbenchProbe(int port, String token) {
    this.port = port;
    this.token = token;
  }

  /**
   * The environment for scripts/run-eclipse.sh that adds the probe, built into {@code dir}, and has
   * it write its address to {@code file}.
   */
  static Map<String, String> variables(Path dir, Path file)
      throws IOException, InterruptedException {
    return Map.of(
        "COMPANION4J_ECLIPSE_EXTRA_BUNDLES", bundle(dir).toString(),
        "COMPANION4J_PROBE_FILE", file.toString());
  }

  /** The probe of the Eclipse that writes {@code file}, once it serves. */
  static WorkbenchProbe await(Path file, Duration bound) throws IOException {
    Awaitility.await().atMost(bound).until(() -> Files.exists(file));
    String[] address = Files.readString(file).strip().split(" ");
    return new WorkbenchProbe(Integer.parseInt(address[0]), address[1]);
  }

  List<Widget> widgets() throws IOException {
    List<Widget> widgets = new ArrayList<>();
    for (String line : ask("widgets")) {
      String[] f = line.split("\t", -1);
      if (f.length < 5) {
        throw new IOException("probe: unreadable line " + line);
      }
      String[] b = f[4].split(",");
      widgets.add(
          new Widget(
              unescape(f[0]),
              f[1],
              unescape(f[2]),
              unescape(f[3]),
              Integer.parseInt(b[0]),
              Integer.parseInt(b[1]),
              Integer.parseInt(b[2]),
              Integer.parseInt(b[3]),
              f.length > 5 ? unescape(f[5]) : ""));
    }
    return widgets;
  }

  /** The first visible widget named {@code name} or with that text. */
  Optional<Widget> find(String nameOrText) throws IOException {
    return widgets().stream()
        .filter(w -> w.name().equals(nameOrText) || w.text().equals(nameOrText))
        .findFirst();
  }

  /** Presses it as a click does; returns before what the press starts (a dialog) is done. */
  void press(String nameOrText) throws IOException {
    ask("press", nameOrText);
  }

  void setText(String nameOrText, String value) throws IOException {
    ask("text", nameOrText, value);
  }

  /** Runs a workbench command, e.g. {@code org.eclipse.ui.window.preferences}, with parameters. */
  void exec(String commandId, String... keyEqualsValue) throws IOException {
    String[] request = new String[keyEqualsValue.length + 2];
    request[0] = "exec";
    request[1] = commandId;
    System.arraycopy(keyEqualsValue, 0, request, 2, keyEqualsValue.length);
    ask(request);
  }

  private List<String> ask(String... request) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout((int) BOUND.toMillis());
      OutputStream out = s.getOutputStream();
      out.write(
          (token + "\t" + String.join("\t", request) + "\n").getBytes(StandardCharsets.UTF_8));
      out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
      String status = in.readLine();
      if (!"ok".equals(status)) {
        throw new IOException("probe: " + request[0] + ": " + status);
      }
      List<String> lines = new ArrayList<>();
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        lines.add(line);
      }
      return lines;
    }
  }

  private static String unescape(String s) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 1 < s.length()) {
        char n = s.charAt(++i);
        out.append(n == 'n' ? '\n' : n == 't' ? '\t' : n == 'r' ? '\r' : n);
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /**
   * Compiles the probe with the JDK Eclipse runs on (the platform's classes are too new for the
   * build's javac 17) against the IDE's bundles, and packs it as a bundle in {@code dir}.
   */
  private static Path bundle(Path dir) throws IOException, InterruptedException {
    Path repo = Path.of(System.getProperty("companion4j.repoRoot"));
    Path sources = repo.resolve("eclipse/app/src/test/probe");
    Path classes = Files.createDirectories(dir.resolve("classes"));
    String jdk =
        System.getenv().getOrDefault("ECLIPSE_JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64");
    List<String> classpath;
    try (Stream<Path> jars = Files.list(repo.resolve("eclipse/app/target/eclipse/plugins"))) {
      classpath = jars.map(Path::toString).filter(p -> p.endsWith(".jar")).toList();
    }
    Process javac =
        new ProcessBuilder(
                Path.of(jdk, "bin", "javac").toString(),
                "--release",
                "17",
                "-nowarn",
                "-cp",
                String.join(":", classpath),
                "-d",
                classes.toString(),
                sources.resolve(PROBE + ".java").toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(javac.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!javac.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS) || javac.exitValue() != 0) {
      throw new IOException("the probe did not compile: " + output);
    }
    Manifest manifest = new Manifest();
    Attributes main = manifest.getMainAttributes();
    main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
    main.putValue("Bundle-ManifestVersion", "2");
    main.putValue("Bundle-SymbolicName", "dev.companion4j.eclipse.probe");
    main.putValue("Bundle-Version", "0.1.0");
    main.putValue("Bundle-Activator", PROBE.replace('/', '.'));
    main.putValue("Bundle-RequiredExecutionEnvironment", "JavaSE-17");
    main.putValue(
        "Require-Bundle", "org.eclipse.ui,org.eclipse.core.runtime,org.eclipse.core.commands");
    Path jar = dir.resolve("companion4j-probe.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
        Stream<Path> files = Files.walk(classes)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        out.putNextEntry(new ZipEntry(classes.relativize(f).toString()));
        Files.copy(f, out);
        out.closeEntry();
      }
    }
    return jar;
  }
}
