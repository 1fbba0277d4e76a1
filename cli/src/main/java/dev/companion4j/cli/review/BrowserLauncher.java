package dev.companion4j.cli.review;

import dev.companion4j.cli.os.Executables;
import java.awt.Desktop;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Shows the review page in the user's browser without putting its token on a command line. */
public final class BrowserLauncher {
  private static final Logger log = LoggerFactory.getLogger(BrowserLauncher.class);

  private BrowserLauncher() {}

  /**
   * Opens {@code url} in the default browser, without waiting for it: {@code open} on macOS, {@code
   * xdg-open} on Linux and other Unix desktops, {@link Desktop#browse} otherwise. Logs how to open
   * it by hand when none of these works.
   *
   * <p>The token never becomes a process argument, which every local user can read: the browser is
   * pointed at an owner-only file that redirects to {@code url}, removed when the JVM exits.
   *
   * @return completes when the browser launcher has ended (the browser itself may still be loading)
   */
  public static CompletableFuture<Void> open(String url) {
    Path privateDir;
    try {
      privateDir =
          Files.createTempDirectory(
              "companion4j-", PosixFilePermissions.asFileAttribute(OWNER_DIR));
    } catch (IOException | UnsupportedOperationException e) {
      couldNotOpen(url, "cannot write the launch file: " + e.getMessage());
      return CompletableFuture.completedFuture(null);
    }
    return open(url, privateDir, System.getProperty("os.name", ""), System.getenv());
  }

  /** Whether {@link #open} has a way to show a browser here: a launcher, or a desktop session. */
  public static boolean canOpenBrowser() {
    // A Unix desktop's launcher needs a display; elsewhere `open` or Desktop.browse serves.
    return !isUnix(System.getProperty("os.name", "")) || hasDisplay(System.getenv());
  }

  static CompletableFuture<Void> open(
      String url, Path privateDir, String osName, Map<String, String> env) {
    String target;
    try {
      target = launchFile(url, privateDir).toUri().toString();
    } catch (IOException e) {
      couldNotOpen(url, "cannot write the launch file: " + e.getMessage());
      return CompletableFuture.completedFuture(null);
    }
    return open(target, url, osName, env);
  }

  private static final Set<PosixFilePermission> OWNER_DIR =
      PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> OWNER_FILE =
      PosixFilePermissions.fromString("rw-------");

  /** Writes an owner-only page in {@code privateDir} that sends the browser on to {@code url}. */
  static Path launchFile(String url, Path privateDir) throws IOException {
    Path file =
        Files.createFile(
            privateDir.resolve("review.html"), PosixFilePermissions.asFileAttribute(OWNER_FILE));
    Files.writeString(
        file,
        "<!doctype html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url="
            + url
            + "\"><title>Companion4J</title><a href=\""
            + url
            + "\">Open the review page</a>\n");
    file.toFile().deleteOnExit();
    privateDir.toFile().deleteOnExit();
    return file;
  }

  /**
   * @param target what the launcher is given (the launch file)
   * @param url the page itself, shown on the terminal only if nothing can open it
   */
  private static CompletableFuture<Void> open(
      String target, String url, String osName, Map<String, String> env) {
    Optional<List<String>> command = browserCommand(target, osName, env);
    if (command.isPresent()) {
      try {
        Process p =
            new ProcessBuilder(command.get())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        return p.onExit()
            .thenAccept(
                done -> {
                  if (done.exitValue() != 0) {
                    couldNotOpen(url, command.get().get(0) + " exited with " + done.exitValue());
                  }
                });
      } catch (IOException e) {
        log.debug("{} failed, trying java.awt.Desktop", command.get().get(0), e);
      }
    }
    if (!osName.toLowerCase(Locale.ROOT).contains("linux") || hasDisplay(env)) {
      try {
        if (Desktop.isDesktopSupported()
            && Desktop.getDesktop().isSupported(Desktop.Action.BROWSE)) {
          Desktop.getDesktop().browse(URI.create(target));
          return CompletableFuture.completedFuture(null);
        }
      } catch (IOException | UnsupportedOperationException e) {
        couldNotOpen(url, e.getMessage());
        return CompletableFuture.completedFuture(null);
      }
    }
    couldNotOpen(
        url,
        hasDisplay(env) || !isUnix(osName) ? "no browser launcher found" : "no graphical session");
    return CompletableFuture.completedFuture(null);
  }

  /** The launcher to run, if this system has one on its PATH. */
  static Optional<List<String>> browserCommand(String url, String osName, Map<String, String> env) {
    String os = osName.toLowerCase(Locale.ROOT);
    if (os.contains("mac")) {
      return onPath("open", env).map(open -> List.of(open, url));
    }
    // Without a display, xdg-open would fall back to a text browser and take the terminal over.
    if (isUnix(osName) && hasDisplay(env)) {
      return onPath("xdg-open", env).map(xdg -> List.of(xdg, url));
    }
    return Optional.empty();
  }

  private static boolean isUnix(String osName) {
    String os = osName.toLowerCase(Locale.ROOT);
    return os.contains("linux") || os.contains("bsd") || os.contains("sunos") || os.contains("nix");
  }

  private static boolean hasDisplay(Map<String, String> env) {
    return !env.getOrDefault("DISPLAY", "").isEmpty()
        || !env.getOrDefault("WAYLAND_DISPLAY", "").isEmpty();
  }

  private static Optional<String> onPath(String program, Map<String, String> env) {
    return Executables.find(program, env).map(Path::toString);
  }

  private static void couldNotOpen(String url, String why) {
    // The full address carries the token: show it on the user's terminal, never in a log file.
    if (System.console() != null) {
      log.warn("Could not open a browser ({}). Open the review page yourself: {}", why, url);
    } else {
      log.warn(
          "Could not open a browser ({}). `companion4j open --print` in the workspace prints the page's address"
              + " with its token; or open {} yourself, with #token= and the token of the discovery file appended",
          why,
          url.substring(0, url.indexOf('#')));
    }
  }
}
