package dev.companion4j.cli;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A started companion as {@code serve} builds it (editor API and review page), its discovery files
 * in the test's folder, over a workspace of two classes and the change a rename of a method makes
 * to both, in the order A, B.
 */
record RenameFixture(HeadlessCompanion headless, Path a, Path b, Map<Path, String> rename)
    implements AutoCloseable {

  static RenameFixture start(Path temp) throws IOException {
    Path workspace = Files.createDirectories(temp.resolve("ws"));
    Path a = Files.writeString(workspace.resolve("A.java"), "class A {\n  void run() {}\n}\n");
    Path b =
        Files.writeString(
            workspace.resolve("B.java"), "class B {\n  void go() { new A().run(); }\n}\n");
    Map<Path, String> rename = new LinkedHashMap<>();
    rename.put(a, "class A {\n  void start() {}\n}\n");
    rename.put(b, "class B {\n  void go() { new A().start(); }\n}\n");
    DiscoveryLocations locations =
        new DiscoveryLocations(Files.createDirectories(temp.resolve("tmp")), temp.resolve("qwen"));
    HeadlessCompanion headless =
        HeadlessCompanion.build(
            HeadlessCompanion.IDE_INFO,
            List.of(workspace),
            builder -> builder.discoveryLocations(locations));
    headless.companion().start();
    return new RenameFixture(headless, a, b, Collections.unmodifiableMap(rename));
  }

  Companion companion() {
    return headless.companion();
  }

  @Override
  public void close() {
    headless.close();
  }
}
