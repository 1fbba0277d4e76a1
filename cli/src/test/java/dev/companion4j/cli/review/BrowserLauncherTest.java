package dev.companion4j.cli.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which launcher opens the page, and that the page's token stays off its command line. */
class BrowserLauncherTest {
  @Test
  void choosesTheLauncherByPlatform(@TempDir Path bin) throws IOException {
    for (String program : List.of("xdg-open", "open")) {
      Path p = Files.writeString(bin.resolve(program), "#!/bin/sh\n");
      assertThat(p.toFile().setExecutable(true)).isTrue();
    }
    String url = "http://127.0.0.1:1/review/#token=00";
    Map<String, String> desktop = Map.of("PATH", bin.toString(), "DISPLAY", ":0");
    Map<String, String> noDisplay = Map.of("PATH", bin.toString());

    assertThat(BrowserLauncher.browserCommand(url, "Linux", desktop))
        .hasValue(List.of(bin.resolve("xdg-open").toString(), url));
    assertThat(BrowserLauncher.browserCommand(url, "Mac OS X", noDisplay))
        .hasValue(List.of(bin.resolve("open").toString(), url));
    assertThat(BrowserLauncher.browserCommand(url, "Linux", noDisplay))
        .as("no text browser in the terminal")
        .isEmpty();
    assertThat(
            BrowserLauncher.browserCommand(
                url, "Linux", Map.of("PATH", "/nonexistent", "DISPLAY", ":0")))
        .isEmpty();
    assertThat(BrowserLauncher.browserCommand(url, "Windows 11", desktop))
        .as("Desktop.browse there")
        .isEmpty();
  }

  @Test
  void theTokenNeverBecomesAProcessArgument(@TempDir Path temp) throws Exception {
    Path bin = Files.createDirectories(temp.resolve("bin"));
    Path seen = temp.resolve("args.txt");
    Path launcher =
        Files.writeString(
            bin.resolve("xdg-open"),
            "#!/bin/sh\nprintf '%s' \"$*\" > "
                + seen
                + ".tmp && mv "
                + seen
                + ".tmp "
                + seen
                + "\n");
    assertThat(launcher.toFile().setExecutable(true)).isTrue();
    Path privateDir = Files.createDirectory(temp.resolve("private"));
    String url = ReviewPage.pageUrl(4711, "5ecret");

    BrowserLauncher.open(url, privateDir, "Linux", Map.of("PATH", bin.toString(), "DISPLAY", ":0"));

    await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(seen));
    String argument = Files.readString(seen);
    assertThat(argument).startsWith("file:").doesNotContain("5ecret");
    Path page = Path.of(URI.create(argument));
    assertThat(Files.readString(page)).contains(url);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(page)))
        .isEqualTo("rw-------");
  }
}
