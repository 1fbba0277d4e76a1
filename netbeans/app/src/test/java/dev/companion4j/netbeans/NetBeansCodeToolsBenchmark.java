package dev.companion4j.netbeans;

import static dev.companion4j.netbeans.ModuleAccess.call;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import junit.framework.Test;
import org.netbeans.junit.NbTestCase;
import org.openide.windows.TopComponent;

/**
 * The latency of each code tool's route, p50 and p99, in the booted platform on a generated Java
 * project of about 10,000 lines: an interface, an abstract class and a second interface, 48 classes
 * in six packages that implement them and call each other across files, and a main class calling
 * into every one. Each route is asked as the extension asks it (HTTP on loopback with the
 * companion's token) {@link #WARM_UP} times, then {@link #RUNS} times timed, after NetBeans indexed
 * the project. A rename is timed until the change is proposed (the companion answers 202 once it is
 * shown); it is then rejected with the review window's Reject button, and the next one waits for
 * the end.
 *
 * <p>A benchmark, not a test: it asserts only that each route answers, and prints a table (also
 * written to {@code target/code-tools-benchmark.txt}). Run by {@code scripts/benchmark.sh
 * code-tools}.
 */
public class NetBeansCodeToolsBenchmark extends NbTestCase {
  private static final Duration WAIT = Duration.ofSeconds(180);
  private static final Path BUILD = Path.of(System.getProperty("companion4j.buildDir"));
  private static final Path WORKSPACE = BUILD.resolve("workspace").resolve("code-tools-bench");
  private static final Path SRC = WORKSPACE.resolve("src");
  private static final int PARTS = 48;
  private static final int STEPS = 13;
  private static final int WARM_UP = 3;
  private static final int RUNS = Integer.getInteger("companion4j.benchRuns", 30);

  private final HttpClient http = HttpClient.newHttpClient();
  private int port;
  private String token;

  public NetBeansCodeToolsBenchmark(String name) {
    super(name);
  }

  public static Test suite() {
    return Ui.platform(NetBeansCodeToolsBenchmark.class)
        .addTest("testEachCodeRouteOnAProjectOfTenThousandLines")
        .suite();
  }

  public void testEachCodeRouteOnAProjectOfTenThousandLines() throws Exception {
    Map<Path, String> files = project();
    Ui.freshProjectFolder(WORKSPACE);
    long lines = 0;
    for (Map.Entry<Path, String> f : files.entrySet()) {
      Files.createDirectories(f.getKey().getParent());
      Files.writeString(f.getKey(), f.getValue());
      lines += f.getValue().lines().count();
    }
    long opened = System.nanoTime();
    TestClassPathProvider.openJavaProject(WORKSPACE);
    Object companion = ModuleAccess.awaitCompanionServing(WORKSPACE, WAIT);
    port = (Integer) call(companion, "port");
    token = (String) call(companion, "authToken");

    // The index-backed routes wait for the scan themselves; this waits until one answers.
    Await.until(
        WAIT,
        Duration.ofMillis(500),
        () -> post("workspaceSymbols", "{\"query\":\"Part1\"}"),
        r -> r.statusCode() == 200 && r.body().contains("Part10"));
    double scanSeconds = (System.nanoTime() - opened) / 1e9;

    Path main = SRC.resolve("bench/app/Main.java");
    Path node = SRC.resolve("bench/core/Node.java");
    Path part5 = part(5);
    Map<String, Callable<HttpResponse<String>>> routes = new LinkedHashMap<>();
    routes.put(
        "definition", () -> post("definition", at(main, "bench.p5.Part5.compute0(", "compute0")));
    routes.put("references", () -> post("references", at(node, "int weight(", "weight")));
    routes.put("documentSymbols", () -> post("documentSymbols", "{\"path\":\"" + part5 + "\"}"));
    routes.put("workspaceSymbols", () -> post("workspaceSymbols", "{\"query\":\"Part1\"}"));
    routes.put(
        "callHierarchy (incoming)",
        () -> post("callHierarchy", with(at(part5, "int compute0(", "compute0"), "incoming")));
    routes.put(
        "typeHierarchy (subtypes)",
        () -> post("typeHierarchy", with(at(node, "interface Node", "Node"), "subtypes")));

    List<String> table = new ArrayList<>();
    table.add(
        String.format(
            Locale.ROOT,
            "project: %d files, %d lines; opened to first answer: %.1f s; %d runs after %d"
                + " warm-ups; %d cores, load average at the start: %s",
            files.size(),
            lines,
            scanSeconds,
            RUNS,
            WARM_UP,
            Runtime.getRuntime().availableProcessors(),
            Files.readString(Path.of("/proc/loadavg")).trim()));
    table.add("route | p50 ms | p99 ms | max ms | results");
    for (Map.Entry<String, Callable<HttpResponse<String>>> route : routes.entrySet()) {
      table.add(measure(route.getKey(), route.getValue()));
    }
    table.add(measureRename(at(part5, "int compute3(", "compute3")));
    table.add("load average at the end: " + Files.readString(Path.of("/proc/loadavg")).trim());
    Files.write(BUILD.resolve("code-tools-benchmark.txt"), table);
    table.forEach(System.out::println);
  }

  /** One route's line of the table. */
  private String measure(String name, Callable<HttpResponse<String>> ask) throws Exception {
    double[] times = new double[RUNS];
    String results = "";
    for (int i = -WARM_UP; i < RUNS; i++) {
      long start = System.nanoTime();
      HttpResponse<String> answer = ask.call();
      long took = System.nanoTime() - start;
      assertEquals(name + ": " + answer.body(), 200, answer.statusCode());
      if (i >= 0) {
        times[i] = took / 1e6;
      }
      results = count(answer.body());
    }
    return row(name, times, results);
  }

  /** The rename's line: until the change is proposed, then rejected in its window. */
  private String measureRename(String position) throws Exception {
    String body = position.substring(0, position.length() - 1) + ",\"newName\":\"stepThree\"}";
    double[] times = new double[RUNS];
    String files = "";
    for (int i = -WARM_UP; i < RUNS; i++) {
      long start = System.nanoTime();
      HttpResponse<String> answer = post("rename", body);
      long took = System.nanoTime() - start;
      assertEquals("rename: " + answer.body(), 202, answer.statusCode());
      if (i >= 0) {
        times[i] = took / 1e6;
      }
      String id = Json.parse(answer.body()).path("change").asString();
      TopComponent window =
          Await.until(
              WAIT,
              () ->
                  Edt.call(
                      () ->
                          TopComponent.getRegistry().getOpened().stream()
                              .filter(tc -> "companion4j-change".equals(tc.getName()))
                              .findFirst()
                              .orElse(null)),
              tc -> tc != null);
      files = Edt.call(window::getDisplayName);
      Ui.click(window, "companion4j.change.reject");
      HttpResponse<String> end =
          http.send(
              request("/ide/code/changes/" + id + "?wait=30").GET().build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(end.body(), "rejected", Json.parse(end.body()).path("state").asString());
      Await.until(WAIT, () -> !Edt.call(window::isOpened));
    }
    return row("rename (until proposed)", times, files);
  }

  private static String row(String name, double[] times, String results) {
    Arrays.sort(times);
    return String.format(
        Locale.ROOT,
        "%s | %.1f | %.1f | %.1f | %s",
        name,
        quantile(times, 0.5),
        quantile(times, 0.99),
        times[times.length - 1],
        results);
  }

  /** The nearest-rank quantile of sorted {@code times}; the platform's other benchmarks use it. */
  static double quantile(double[] sorted, double q) {
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private HttpResponse<String> post(String route, String json) throws Exception {
    return http.send(
        request("/ide/code/" + route)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Authorization", "Bearer " + token)
        .timeout(WAIT);
  }

  /** The body naming the place of {@code name} inside the first {@code context} of {@code file}. */
  private static String at(Path file, String context, String name) throws Exception {
    String text = Files.readString(file);
    int offset = text.indexOf(context);
    assertTrue(context + " in " + file, offset >= 0);
    offset += context.indexOf(name);
    int line = 1;
    int lineStart = 0;
    for (int i = 0; i < offset; i++) {
      if (text.charAt(i) == '\n') {
        line++;
        lineStart = i + 1;
      }
    }
    return String.format(
        Locale.ROOT,
        "{\"path\":\"%s\",\"line\":%d,\"column\":%d}",
        file,
        line,
        offset - lineStart + 1);
  }

  private static String with(String position, String direction) {
    return position.substring(0, position.length() - 1) + ",\"direction\":\"" + direction + "\"}";
  }

  /** How many results an answer has, with those beyond the first 100 counted. */
  private static String count(String body) {
    Json answer = Json.parse(body);
    int results = 0;
    for (Json ignored : answer.path("results")) {
      results++;
    }
    int more = answer.path("more").asInt();
    return results + (more == 0 ? "" : " (+" + more + " more)");
  }

  private static Path part(int i) {
    return SRC.resolve("bench/p" + (i % 6) + "/Part" + i + ".java");
  }

  /**
   * The project: {@code Node} (an interface), {@code Base} (abstract, implements it), {@code
   * Scaled} (extends it), {@value #PARTS} classes of {@value #STEPS} steps each, every step calling
   * the same step of the next class, and {@code Main} calling step 0 of each class.
   */
  private static Map<Path, String> project() {
    Map<Path, String> files = new LinkedHashMap<>();
    files.put(
        SRC.resolve("bench/core/Node.java"),
        String.join(
            "\n",
            "package bench.core;",
            "",
            "/** Something with a weight and a label. */",
            "public interface Node {",
            "    int weight(int input);",
            "",
            "    String label();",
            "}",
            ""));
    files.put(
        SRC.resolve("bench/core/Scaled.java"),
        String.join(
            "\n",
            "package bench.core;",
            "",
            "/** A node with a scale. */",
            "public interface Scaled extends Node {",
            "    int scale();",
            "}",
            ""));
    files.put(
        SRC.resolve("bench/core/Base.java"),
        String.join(
            "\n",
            "package bench.core;",
            "",
            "/** What every part shares. */",
            "public abstract class Base implements Node {",
            "    protected int total;",
            "",
            "    @Override",
            "    public String label() {",
            "        return getClass().getSimpleName() + \":\" + total;",
            "    }",
            "",
            "    protected int mix(int a, int b) {",
            "        return a * 31 + b;",
            "    }",
            "}",
            ""));
    StringBuilder main = new StringBuilder();
    main.append("package bench.app;\n\n/** Calls into every part. */\npublic class Main {\n");
    main.append("    public static void main(String[] args) {\n        int sum = 0;\n");
    for (int i = 0; i < PARTS; i++) {
      files.put(part(i), partSource(i));
      main.append("        sum += bench.p")
          .append(i % 6)
          .append(".Part")
          .append(i)
          .append(".compute0(")
          .append(i)
          .append(");\n");
    }
    main.append("        bench.core.Node node = new bench.p0.Part0();\n");
    main.append("        System.out.println(sum + node.weight(2));\n    }\n}\n");
    files.put(SRC.resolve("bench/app/Main.java"), main.toString());
    return files;
  }

  private static String partSource(int i) {
    int next = (i + 1) % PARTS;
    String nextClass = "bench.p" + (next % 6) + ".Part" + next;
    StringBuilder s = new StringBuilder();
    s.append("package bench.p").append(i % 6).append(";\n\n");
    s.append("import bench.core.Base;\nimport bench.core.Node;\n");
    if (i % 3 == 0) {
      s.append("import bench.core.Scaled;\n");
    }
    s.append("\n/** Part ").append(i).append(" of the generated project. */\n");
    s.append("public class Part").append(i).append(" extends Base");
    s.append(i % 3 == 0 ? " implements Scaled {\n" : " {\n");
    for (int j = 0; j < STEPS; j++) {
      s.append("    /** Step ").append(j).append(" of part ").append(i).append(". */\n");
      s.append("    public static int compute").append(j).append("(int value) {\n");
      s.append("        int result = value * ").append(j + 1).append(";\n");
      s.append("        if (result > ").append(1000 + i).append(") {\n");
      s.append("            result = result - ").append(i).append(";\n");
      s.append("        }\n");
      s.append("        for (int k = 0; k < 3; k++) {\n");
      s.append("            result += k * ").append(j).append(";\n");
      s.append("        }\n");
      s.append("        return value > 0\n");
      s.append("            ? ").append(nextClass).append(".compute").append(j);
      s.append("(value - 1) + result\n");
      s.append("            : result;\n");
      s.append("    }\n\n");
    }
    s.append("    @Override\n    public int weight(int input) {\n        int sum = input;\n");
    s.append("        for (int j = 0; j < 4; j++) {\n            sum += compute0(j);\n        }\n");
    s.append("        return sum;\n    }\n\n");
    s.append("    /** The weight of another node, mixed with this one's total. */\n");
    s.append("    public int visit(Node node) {\n");
    s.append("        return mix(node.weight(total), ").append(i).append(");\n    }\n");
    if (i % 3 == 0) {
      s.append("\n    @Override\n    public int scale() {\n        return ")
          .append(i)
          .append(";\n    }\n");
    }
    s.append("}\n");
    return s.toString();
  }
}
