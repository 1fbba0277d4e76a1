package dev.companion4j.cli;

import dev.companion4j.engine.CompanionStatus;
import dev.companion4j.engine.discovery.CompanionAddress;
import dev.companion4j.engine.discovery.DiscoveredCompanion;
import dev.companion4j.engine.discovery.DiscoveryScanner;
import dev.companion4j.extension.ide.IdeLink;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;

/**
 * The companions the discovery files name, one entry per companion (a companion writes a file per
 * CLI generation), with what only the running companion can say: its review page and its CLIs.
 */
final class RunningCompanions {
  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(2);

  /**
   * One companion.
   *
   * @param companion its newest discovery file's view
   * @param files every discovery file it wrote
   * @param address how to reach it, when its process runs and this user can read its token
   * @param clients the labels of its connected CLIs, when it answered {@code /ide/status}
   * @param reviewPage whether it serves a review page
   */
  record Entry(
      DiscoveredCompanion companion,
      List<Path> files,
      Optional<CompanionAddress> address,
      Optional<List<String>> clients,
      boolean reviewPage) {

    String pageAddress() {
      return ReviewPages.address(companion.port());
    }
  }

  private RunningCompanions() {}

  static List<Entry> list(DiscoveryScanner scanner) {
    // A companion is its port and process; an older generation's file names no process and joins
    // the companion on its port.
    Map<String, List<DiscoveredCompanion>> byCompanion = new LinkedHashMap<>();
    List<DiscoveredCompanion> found = scanner.scan();
    for (DiscoveredCompanion c : found) {
      c.pid()
          .ifPresent(
              pid ->
                  byCompanion.computeIfAbsent(c.port() + "/" + pid, k -> new ArrayList<>()).add(c));
    }
    for (DiscoveredCompanion c : found) {
      if (c.pid().isEmpty()) {
        byCompanion.entrySet().stream()
            .filter(e -> e.getKey().startsWith(c.port() + "/"))
            .findFirst()
            .map(Map.Entry::getValue)
            .orElseGet(() -> byCompanion.computeIfAbsent(c.port() + "/?", k -> new ArrayList<>()))
            .add(c);
      }
    }
    Map<Integer, CompanionAddress> addresses = new LinkedHashMap<>();
    scanner.reachable().forEach(a -> addresses.put(a.port(), a));
    HttpClient http = HttpClient.newBuilder().connectTimeout(ASK_TIMEOUT).build();
    List<Entry> entries = new ArrayList<>();
    for (List<DiscoveredCompanion> files : byCompanion.values()) {
      DiscoveredCompanion first =
          files.stream().filter(DiscoveredCompanion::alive).findFirst().orElse(files.get(0));
      Optional<CompanionAddress> address =
          first.alive() ? Optional.ofNullable(addresses.get(first.port())) : Optional.empty();
      entries.add(
          new Entry(
              first,
              files.stream().map(DiscoveredCompanion::file).toList(),
              address,
              address.flatMap(RunningCompanions::clients),
              first.alive() && servesPage(http, first.port())));
    }
    return entries;
  }

  private static Optional<List<String>> clients(CompanionAddress address) {
    try {
      return Optional.of(
          IdeLink.status(address).clients().stream().map(CompanionStatus.Client::label).toList());
    } catch (IOException | JacksonException e) {
      return Optional.empty();
    }
  }

  /** Whether the companion on {@code port} serves a review page. */
  static boolean servesPage(int port) {
    return servesPage(HttpClient.newBuilder().connectTimeout(ASK_TIMEOUT).build(), port);
  }

  private static boolean servesPage(HttpClient http, int port) {
    try {
      return http.send(
                  HttpRequest.newBuilder(URI.create(ReviewPages.address(port)))
                      .timeout(ASK_TIMEOUT)
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
