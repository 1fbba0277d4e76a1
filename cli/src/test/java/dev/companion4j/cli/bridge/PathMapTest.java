package dev.companion4j.cli.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The path mapping: longest prefix on whole components, both directions. The generated cases run
 * from fixed seeds, so a failure names the seed and repeats.
 */
class PathMapTest {
  private static final String[] NAMES = {
    "a", "b", "app", "ap", "app.bak", "x y", "ü", "app-1", "."
  };

  private static PathMap map(String... specs) {
    List<PathMap.Mapping> mappings = new ArrayList<>();
    for (String spec : specs) {
      mappings.add(PathMap.Mapping.parse(spec));
    }
    return new PathMap(mappings);
  }

  @ParameterizedTest
  @CsvSource({
    "/workspaces/app,                /home/me/app",
    "/workspaces/app/src/Main.java,  /home/me/app/src/Main.java",
    "/workspaces/app/,               /home/me/app/",
    "/workspaces/app/sub/deep/x,     /mnt/sub/deep/x",
    "/workspaces/app/sub,            /mnt/sub",
    "/workspaces/apple/x,            /workspaces/apple/x",
    "/workspaces/ap,                 /workspaces/ap",
    "/workspaces,                    /workspaces",
    "/elsewhere/file,                /elsewhere/file",
    "relative/path,                  relative/path",
  })
  void theLongestPrefixOnWholeComponentsWinsAndOtherPathsPassUnchanged(
      String cli, String companion) {
    PathMap paths = map("/workspaces/app=/home/me/app", "/workspaces/app/sub=/mnt/sub");

    assertThat(paths.toCompanion(cli)).isEqualTo(companion);
  }

  @Test
  void theCompanionsPathsComeBackAsTheClisByTheSameRule() {
    PathMap paths = map("/workspaces/app=/home/me/app", "/workspaces/app/sub=/mnt/sub");

    assertThat(paths.toCli("/home/me/app/src/A.java")).isEqualTo("/workspaces/app/src/A.java");
    assertThat(paths.toCli("/mnt/sub/B.java")).isEqualTo("/workspaces/app/sub/B.java");
    assertThat(paths.toCli("/home/me/apple/C.java")).isEqualTo("/home/me/apple/C.java");
    assertThat(paths.toCli("/workspaces/app/D.java"))
        .as("a CLI path is no companion path")
        .isEqualTo("/workspaces/app/D.java");
  }

  @Test
  void aMappingIsNormalisedTrailingSeparatorsAndRepeatsDropped() {
    PathMap.Mapping m = PathMap.Mapping.parse("/workspaces//app/=/home/me/app///");

    assertThat(m.cliPath()).isEqualTo("/workspaces/app");
    assertThat(m.companionPath()).isEqualTo("/home/me/app");
  }

  @Test
  void theRootMapsEverythingUnderIt() {
    PathMap paths = map("/=/srv/root");

    assertThat(paths.toCompanion("/etc/hosts")).isEqualTo("/srv/root/etc/hosts");
    assertThat(paths.toCompanion("/")).isEqualTo("/srv/root");
    assertThat(paths.toCli("/srv/root/etc/hosts")).isEqualTo("/etc/hosts");
    assertThat(paths.toCli("/srv/root")).isEqualTo("/");
  }

  @Test
  void aWindowsCompanionGetsBackslashesAndGivesThemBack() {
    PathMap paths = map("/workspaces/app=C:\\Users\\me\\app");

    assertThat(paths.toCompanion("/workspaces/app/src/Main.java"))
        .isEqualTo("C:\\Users\\me\\app\\src\\Main.java");
    assertThat(paths.toCli("C:\\Users\\me\\app\\src\\Main.java"))
        .isEqualTo("/workspaces/app/src/Main.java");
    assertThat(paths.toCli("C:\\Users\\me\\apple\\x")).isEqualTo("C:\\Users\\me\\apple\\x");
  }

  @Test
  void aCliPathMayHoldAnEqualsSign() {
    PathMap.Mapping m = PathMap.Mapping.parse("/w/a=b=/home/me/a=b");

    assertThat(m.cliPath()).isEqualTo("/w/a=b");
    assertThat(m.companionPath()).isEqualTo("/home/me/a=b");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "/workspaces/app                | expected CLI_PATH=COMPANION_PATH, e.g. /workspaces/app=/home/me/app, but there is no '='",
        "/workspaces/app=               | the companion path after '=' is empty",
        "=/home/me/app                  | the CLI path is empty",
        "workspaces/app=/home/me/app    | the CLI path must be absolute: workspaces/app",
        "/workspaces/app=home/me/app    | the companion path must be absolute: home/me/app",
        "/workspaces/../app=/home/me/app | the CLI path must not contain '.' or '..': /workspaces/../app",
      })
  void aBadMappingSaysWhatIsWrong(String spec, String message) {
    assertThatThrownBy(() -> PathMap.Mapping.parse(spec))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void twoMappingsMayNotShareASide() {
    assertThatThrownBy(() -> map("/w/a=/h/a", "/w/a=/h/b"))
        .hasMessage("two mappings give the CLI path /w/a");
    assertThatThrownBy(() -> map("/w/a=/h/a", "/w/b/=/h/a"))
        .hasMessage("two mappings give the companion path /h/a");
  }

  @Test
  void everyPathUnderAMappingComesBackAsItWas() {
    for (long seed = 0; seed < 300; seed++) {
      Random random = new Random(seed);
      String cliRoot = path(random, 1 + random.nextInt(3));
      String companionRoot = path(random, 1 + random.nextInt(3));
      PathMap paths = map(cliRoot + "=" + companionRoot);
      String under = cliRoot + path(random, random.nextInt(4)) + (random.nextBoolean() ? "/" : "");
      String companionUnder = companionRoot + under.substring(cliRoot.length());

      assertThat(paths.toCompanion(under)).as("seed %d", seed).isEqualTo(companionUnder);
      assertThat(paths.toCli(paths.toCompanion(under))).as("seed %d", seed).isEqualTo(under);
      assertThat(paths.toCompanion(paths.toCli(companionUnder)))
          .as("seed %d", seed)
          .isEqualTo(companionUnder);
    }
  }

  @Test
  void aPathThatSharesOnlyCharactersWithAMappingIsNotUnderIt() {
    for (long seed = 0; seed < 300; seed++) {
      Random random = new Random(seed);
      String root = path(random, 1 + random.nextInt(3));
      PathMap paths = map(root + "=/mapped");
      // The same characters followed by more of a name: a sibling, not a child.
      String sibling = root + NAMES[random.nextInt(NAMES.length)] + path(random, random.nextInt(3));

      assertThat(paths.toCompanion(sibling)).as("seed %d: %s", seed, sibling).isEqualTo(sibling);
      assertThat(paths.toCli(sibling)).as("seed %d: %s", seed, sibling).isEqualTo(sibling);
    }
  }

  @Test
  void amongNestedMappingsTheDeepestDecidesAndTheWayBackAgrees() {
    for (long seed = 0; seed < 300; seed++) {
      Random random = new Random(seed);
      String cliRoot = path(random, 1 + random.nextInt(2));
      String nested = path(random, 1 + random.nextInt(2));
      // The nested mapping's companion side is nested the same way, so the mappings do not cross.
      PathMap paths = map(cliRoot + "=/c", cliRoot + nested + "=/c" + nested + "/inner");
      String tail = path(random, random.nextInt(3));

      assertThat(paths.toCompanion(cliRoot + nested + tail))
          .as("seed %d", seed)
          .isEqualTo("/c" + nested + "/inner" + tail);
      assertThat(paths.toCompanion(cliRoot + tail))
          .as("seed %d", seed)
          .isEqualTo(
              tail.startsWith(nested + "/") || tail.equals(nested)
                  ? "/c" + nested + "/inner" + tail.substring(nested.length())
                  : "/c" + tail);
      assertThat(paths.toCli(paths.toCompanion(cliRoot + nested + tail)))
          .as("seed %d", seed)
          .isEqualTo(cliRoot + nested + tail);
    }
  }

  /** {@code n} components, each with a leading separator: {@code /a/x y/ü}. */
  private static String path(Random random, int n) {
    StringBuilder path = new StringBuilder();
    IntStream.range(0, n)
        .forEach(i -> path.append('/').append(NAMES[random.nextInt(NAMES.length - 1)]));
    return path.toString();
  }
}
