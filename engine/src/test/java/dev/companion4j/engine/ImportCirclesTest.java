package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API a host sees and the internals behind it depend one way only: the facade reaches in,
 * nothing inside reaches back, so neither can change without the other knowing. Checked on the
 * compiled classes, which is what the compiler's module rules do not cover.
 */
class ImportCirclesTest {

  @Test
  void noCircleOfClassesCrossesBetweenTheApiAndTheInternals(@TempDir Path temp) throws Exception {
    Map<String, Set<String>> uses = classDependencies(temp);
    assertThat(uses)
        .as("jdeps found the engine's classes")
        .containsKey("dev.companion4j.engine.Companion");

    List<Set<String>> crossing = new ArrayList<>();
    for (Set<String> circle : circles(uses)) {
      boolean api = circle.stream().anyMatch(c -> !c.contains(".internal."));
      boolean internal = circle.stream().anyMatch(c -> c.contains(".internal."));
      if (api && internal) {
        crossing.add(circle);
      }
    }

    assertThat(crossing)
        .as("circles of classes that cross between the API and the internals")
        .isEmpty();
  }

  /**
   * Top-level class to the top-level classes of the engine it uses, as jdeps reads the bytecode.
   */
  private static Map<String, Set<String>> classDependencies(Path temp) throws Exception {
    Path classes =
        Path.of(Companion.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    // jdeps would resolve the descriptor's modules, which are not all on hand here: read the
    // classes only.
    Path copy = temp.resolve("classes");
    try (Stream<Path> files = Files.walk(classes)) {
      files
          .filter(
              f ->
                  f.toString().endsWith(".class")
                      && !f.getFileName().toString().equals("module-info.class"))
          .forEach(f -> copyTo(copy.resolve(classes.relativize(f).toString()), f));
    }
    ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
    StringWriter out = new StringWriter();
    int status =
        jdeps.run(
            new PrintWriter(out),
            new PrintWriter(out),
            "-verbose:class",
            "-filter:none",
            "-e",
            "dev\\.companion4j\\.engine\\..*",
            copy.toString());
    assertThat(status).as(out.toString()).isZero();
    Map<String, Set<String>> uses = new HashMap<>();
    for (String line : out.toString().split("\n")) {
      String[] parts = line.trim().split("\\s+");
      if (parts.length >= 3 && parts[1].equals("->")) {
        String from = topLevel(parts[0]);
        String to = topLevel(parts[2]);
        if (!from.equals(to)) {
          uses.computeIfAbsent(from, k -> new HashSet<>()).add(to);
        }
      }
    }
    return uses;
  }

  private static void copyTo(Path target, Path source) {
    try {
      Files.createDirectories(target.getParent());
      Files.copy(source, target);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String topLevel(String className) {
    int nested = className.indexOf('$');
    return nested < 0 ? className : className.substring(0, nested);
  }

  /** The strongly connected groups of more than one class (Tarjan's algorithm). */
  private static List<Set<String>> circles(Map<String, Set<String>> uses) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new HashSet<>();
    List<Set<String>> circles = new ArrayList<>();
    for (String start : new TreeSet<>(uses.keySet())) {
      if (!index.containsKey(start)) {
        visit(start, uses, index, low, stack, onStack, circles);
      }
    }
    return circles;
  }

  private static void visit(
      String node,
      Map<String, Set<String>> uses,
      Map<String, Integer> index,
      Map<String, Integer> low,
      Deque<String> stack,
      Set<String> onStack,
      List<Set<String>> circles) {
    index.put(node, index.size());
    low.put(node, index.get(node));
    stack.push(node);
    onStack.add(node);
    for (String next : uses.getOrDefault(node, Set.of())) {
      if (!index.containsKey(next)) {
        visit(next, uses, index, low, stack, onStack, circles);
        low.put(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.contains(next)) {
        low.put(node, Math.min(low.get(node), index.get(next)));
      }
    }
    if (low.get(node).equals(index.get(node))) {
      Set<String> group = new TreeSet<>();
      String member;
      do {
        member = stack.pop();
        onStack.remove(member);
        group.add(member);
      } while (!member.equals(node));
      if (group.size() > 1) {
        circles.add(group);
      }
    }
  }
}
