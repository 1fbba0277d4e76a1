package dev.companion4j.cli;

import dev.companion4j.cli.review.BrowserLauncher;
import dev.companion4j.cli.review.ReviewPage;
import dev.companion4j.engine.discovery.CompanionAddress;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.engine.discovery.DiscoveryScanner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code companion4j open}: the review page of the companion serving this folder. */
@Command(
    name = "open",
    mixinStandardHelpOptions = true,
    description = {
      "Opens the review page of the companion serving this folder.",
      "The newest companion wins when several serve it. Without a browser to open (or with --print)",
      "it prints the page's address with its token instead."
    })
final class OpenCommand implements Callable<Integer> {
  private static final Duration LAUNCHER_WAIT = Duration.ofSeconds(20);
  private static final Duration BROWSER_READ_GRACE = Duration.ofSeconds(3);

  @Spec CommandSpec spec;

  @Option(
      names = "--print",
      description = "Print the address (with the token) instead of opening a browser.")
  boolean print;

  @Option(
      names = "--workspace",
      paramLabel = "DIR",
      description = "The folder to find a companion for (default: the current one).")
  Path workspace = Path.of("");

  @Override
  public Integer call() {
    Path dir = workspace.toAbsolutePath().normalize();
    if (!Files.isDirectory(dir)) {
      spec.commandLine().getErr().println("companion4j open: not a directory: " + dir);
      return 2;
    }
    List<CompanionAddress> serving =
        new DiscoveryScanner(DiscoveryLocations.fromEnvironment()).serving(dir);
    Optional<CompanionAddress> withPage =
        serving.stream().filter(a -> RunningCompanions.servesPage(a.port())).findFirst();
    if (withPage.isEmpty()) {
      spec.commandLine()
          .getErr()
          .println(
              "companion4j open: no running Companion4J review page serves "
                  + dir
                  + (serving.isEmpty()
                      ? ""
                      : " ("
                          + serving.size()
                          + " other companion"
                          + (serving.size() == 1 ? " does" : "s do")
                          + ")")
                  + ". Start one here with: companion4j serve --open");
      return 1;
    }
    String url = ReviewPage.pageUrl(withPage.get().port(), withPage.get().authToken());
    if (print || !BrowserLauncher.canOpenBrowser()) {
      System.out.println(url);
    } else {
      try {
        BrowserLauncher.open(url).get(LAUNCHER_WAIT.toSeconds(), TimeUnit.SECONDS);
        // The launch file that carries the token goes when this process exits; a browser that was
        // handed it must have read it by then.
        Thread.sleep(BROWSER_READ_GRACE.toMillis());
      } catch (ExecutionException | TimeoutException e) {
        spec.commandLine()
            .getErr()
            .println("companion4j open: the browser did not start; the address is: " + url);
        return 1;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 1;
      }
      System.out.println(
          "Opened the review page of the companion on port " + withPage.get().port() + ".");
    }
    return 0;
  }
}
