package dev.companion4j.engine.discovery;

import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Each generation of discovery file the CLIs read, with its place and name. */
public enum DiscoveryFileKind {
  /** Qwen Code 0.24 and later read {@code <qwenHome>/ide/<port>.lock}. */
  QWEN_LOCK(DiscoveryTarget.QWEN_CODE, Pattern.compile("^(\\d+)\\.lock$")) {
    @Override
    Path dir(DiscoveryLocations locations) {
      return locations.qwenLockDir();
    }

    @Override
    Path sharedUpTo(DiscoveryLocations locations) {
      return locations.qwenHome();
    }

    @Override
    String fileName(long pid, int port) {
      return port + ".lock";
    }

    @Override
    OptionalLong pidFromName(Matcher matcher) {
      return OptionalLong.empty();
    }
  },
  /**
   * The Qwen Code companion spec's file. No published Qwen Code reads this place (0.1.3 looked in
   * {@code <tmp>/gemini/ide/}); written for companions' readers that follow the spec.
   */
  QWEN_SPEC(
      DiscoveryTarget.QWEN_CODE, Pattern.compile("^qwen-code-ide-server-(\\d+)-(\\d+)\\.json$")) {
    @Override
    Path dir(DiscoveryLocations locations) {
      return locations.qwenSpecDir();
    }

    @Override
    String fileName(long pid, int port) {
      return "qwen-code-ide-server-" + pid + "-" + port + ".json";
    }
  },
  /**
   * The legacy Qwen file keyed by the IDE's pid alone: the only file Qwen Code 0.1.x to 0.10.x find
   * without {@code QWEN_CODE_IDE_SERVER_PORT}, under the pid they take for the IDE.
   */
  QWEN_LEGACY(DiscoveryTarget.QWEN_CODE, Pattern.compile("^qwen-code-ide-server-(\\d+)\\.json$")) {
    @Override
    Path dir(DiscoveryLocations locations) {
      return locations.tmpDir();
    }

    @Override
    String fileName(long pid, int port) {
      return "qwen-code-ide-server-" + pid + ".json";
    }
  },
  /**
   * Gemini CLI reads {@code <tmp>/gemini/ide/gemini-ide-server-<pid>-<port>.json}: 0.10 to 0.3x
   * only under the pid they take for the IDE, 0.40 and later under any.
   */
  GEMINI(DiscoveryTarget.GEMINI_CLI, Pattern.compile("^gemini-ide-server-(\\d+)-(\\d+)\\.json$")) {
    @Override
    Path dir(DiscoveryLocations locations) {
      return locations.geminiDir();
    }

    @Override
    String fileName(long pid, int port) {
      return "gemini-ide-server-" + pid + "-" + port + ".json";
    }
  };

  private final DiscoveryTarget target;
  private final Pattern namePattern;

  DiscoveryFileKind(DiscoveryTarget target, Pattern namePattern) {
    this.target = target;
    this.namePattern = namePattern;
  }

  public DiscoveryTarget target() {
    return target;
  }

  abstract Path dir(DiscoveryLocations locations);

  /**
   * The deepest directory on the way to {@link #dir} that may be shared with other users (as {@code
   * /tmp} is) or be a link; the companion owns everything below it alone.
   */
  Path sharedUpTo(DiscoveryLocations locations) {
    return locations.tmpDir();
  }

  abstract String fileName(long pid, int port);

  /** The file of a companion with this pid and port. */
  public Path path(DiscoveryLocations locations, long pid, int port) {
    return dir(locations).resolve(fileName(pid, port));
  }

  /**
   * Whether a companion also names this file after its ancestors: the generations that CLIs still
   * in use find only under the pid they take for the IDE, and whose names cannot collide with
   * another companion's or whose single slot is worth sharing ({@link DiscoveryFiles}).
   */
  boolean namedAfterAncestors() {
    return this == GEMINI || this == QWEN_LEGACY;
  }

  Matcher match(String fileName) {
    return namePattern.matcher(fileName);
  }

  OptionalLong pidFromName(Matcher matcher) {
    return OptionalLong.of(Long.parseLong(matcher.group(1)));
  }
}
