package dev.companion4j.cli.bridge;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Where the CLI and the companion see the same files: the CLI in a container sees the workspace at
 * {@code /workspaces/app}, the companion at {@code /home/me/app}. A path is translated by the
 * mapping with the longest prefix on its side, matched on whole components ({@code /w/app} is not
 * under {@code /w/ap}); a path under no mapping passes unchanged. Either side may be a Windows path
 * ({@code C:\work\app}), whose separators are {@code \} and {@code /}: what follows the prefix is
 * written with the other side's separator.
 *
 * <p>Translating there and back gives the path again when no two mappings cross (one mapping's side
 * nested in another's while the other sides are not nested the same way).
 *
 * @param mappings in the order given; no two share a side
 */
record PathMap(List<Mapping> mappings) {
  private static final Pattern WINDOWS_ROOT = Pattern.compile("^(?:[A-Za-z]:[\\\\/]|\\\\\\\\).*");

  PathMap {
    mappings = List.copyOf(mappings);
    for (int i = 0; i < mappings.size(); i++) {
      for (int j = 0; j < i; j++) {
        if (mappings.get(i).cliPath().equals(mappings.get(j).cliPath())) {
          throw new IllegalArgumentException(
              "two mappings give the CLI path " + mappings.get(i).cliPath());
        }
        if (mappings.get(i).companionPath().equals(mappings.get(j).companionPath())) {
          throw new IllegalArgumentException(
              "two mappings give the companion path " + mappings.get(i).companionPath());
        }
      }
    }
  }

  /**
   * One pair of paths that name the same folder.
   *
   * @param cliPath where the CLI sees it: absolute, without a trailing separator (a root excepted)
   * @param companionPath where the companion sees it, likewise
   */
  record Mapping(String cliPath, String companionPath) {
    Mapping {
      cliPath = normalise(cliPath, "CLI");
      companionPath = normalise(companionPath, "companion");
    }

    /**
     * {@code CLI_PATH=COMPANION_PATH}, split at the first {@code =} followed by an absolute path,
     * so a CLI path may itself hold an {@code =}.
     *
     * @throws IllegalArgumentException with what is wrong, in words for the user
     */
    static Mapping parse(String spec) {
      for (int i = spec.indexOf('='); i >= 0; i = spec.indexOf('=', i + 1)) {
        if (isAbsolute(spec.substring(i + 1))) {
          return new Mapping(spec.substring(0, i), spec.substring(i + 1));
        }
      }
      int eq = spec.lastIndexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException(
            "expected CLI_PATH=COMPANION_PATH, e.g. /workspaces/app=/home/me/app, but there is no '='");
      }
      String companion = spec.substring(eq + 1);
      throw new IllegalArgumentException(
          companion.isEmpty()
              ? "the companion path after '=' is empty"
              : "the companion path must be absolute: " + companion);
    }

    @Override
    public String toString() {
      return cliPath + "=" + companionPath;
    }
  }

  /** The companion's path for a path the CLI sent. */
  String toCompanion(String cliPath) {
    return translate(cliPath, Mapping::cliPath, Mapping::companionPath);
  }

  /** The CLI's path for a path the companion sent. */
  String toCli(String companionPath) {
    return translate(companionPath, Mapping::companionPath, Mapping::cliPath);
  }

  boolean isEmpty() {
    return mappings.isEmpty();
  }

  private String translate(
      String path, Function<Mapping, String> from, Function<Mapping, String> to) {
    Optional<Mapping> best =
        mappings.stream()
            .filter(m -> remainder(path, from.apply(m)) != null)
            .max(Comparator.comparingInt(m -> from.apply(m).length()));
    if (best.isEmpty()) {
      return path;
    }
    String prefix = from.apply(best.get());
    String target = to.apply(best.get());
    String rest = remainder(path, prefix);
    if (isWindows(prefix) != isWindows(target)) {
      rest = rest.replace(separator(prefix), separator(target));
    }
    return endsWithSeparator(target) && !rest.isEmpty()
        ? target + rest.substring(1)
        : target + rest;
  }

  /**
   * What follows {@code prefix} in {@code path}, from the separator after it on (empty when they
   * are equal), or null when {@code path} is not under {@code prefix} on whole components.
   */
  private static String remainder(String path, String prefix) {
    if (!path.startsWith(prefix)) {
      return null;
    }
    String rest = path.substring(prefix.length());
    if (rest.isEmpty()) {
      return rest;
    }
    if (endsWithSeparator(prefix)) {
      // A root: its separator belongs to it.
      return separator(prefix) + rest;
    }
    return isSeparator(rest.charAt(0), isWindows(prefix)) ? rest : null;
  }

  private static String normalise(String path, String side) {
    if (path == null || path.isEmpty()) {
      throw new IllegalArgumentException("the " + side + " path is empty");
    }
    if (!isAbsolute(path)) {
      throw new IllegalArgumentException("the " + side + " path must be absolute: " + path);
    }
    boolean windows = isWindows(path);
    char separator = separator(path);
    // A root's own separators (C:\, \\server) are kept; after it, runs of separators become one.
    int rootLength = windows ? (path.startsWith("\\\\") ? 2 : 3) : 1;
    List<String> names = new ArrayList<>();
    for (String name : path.substring(rootLength).split(windows ? "[\\\\/]+" : "/+")) {
      if (name.equals(".") || name.equals("..")) {
        throw new IllegalArgumentException(
            "the " + side + " path must not contain '.' or '..': " + path);
      }
      if (!name.isEmpty()) {
        names.add(name);
      }
    }
    return path.substring(0, rootLength) + String.join(String.valueOf(separator), names);
  }

  private static boolean isAbsolute(String path) {
    return path.startsWith("/") || WINDOWS_ROOT.matcher(path).matches();
  }

  private static boolean isWindows(String path) {
    return WINDOWS_ROOT.matcher(path).matches();
  }

  private static char separator(String path) {
    return isWindows(path) ? '\\' : '/';
  }

  private static boolean isSeparator(char c, boolean windows) {
    return c == '/' || (windows && c == '\\');
  }

  private static boolean endsWithSeparator(String path) {
    return isSeparator(path.charAt(path.length() - 1), isWindows(path));
  }
}
