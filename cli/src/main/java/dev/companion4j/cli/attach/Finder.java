package dev.companion4j.cli.attach;

import dev.companion4j.engine.discovery.CompanionProof;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.engine.discovery.DiscoveryScanner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the companion for the folder: the one {@code COMPANION4J_EDITOR_API} and {@code
 * COMPANION4J_TOKEN} name, else the newest that discovery finds serving it. Either must prove it
 * holds its token ({@link CompanionProof}) before the token goes anywhere.
 */
final class Finder {
  static final String API_VARIABLE = "COMPANION4J_EDITOR_API";
  static final String TOKEN_VARIABLE = "COMPANION4J_TOKEN";
  private static final Pattern LOOPBACK_API =
      Pattern.compile("http://(?:127\\.0\\.0\\.1|localhost):(\\d{1,5})/editor/?");
  private static final Duration PROOF_TIMEOUT = Duration.ofSeconds(2);

  /** What a look found: a proven companion, or why there is none. */
  record Search(Optional<Target> target, String reason) {
    static Search found(Target target) {
      return new Search(Optional.of(target), "");
    }

    static Search none(String reason) {
      return new Search(Optional.empty(), reason);
    }
  }

  /** The companion the environment names, if it names one; never in {@link #toString()}. */
  private record Named(int port, String token) {
    @Override
    public String toString() {
      return "Named[port=" + port + "]";
    }
  }

  private final Path workspace;
  private final DiscoveryScanner scanner;
  private final Optional<Named> named;

  private Finder(Path workspace, DiscoveryScanner scanner, Optional<Named> named) {
    this.workspace = workspace;
    this.scanner = scanner;
    this.named = named;
  }

  /**
   * The finder for {@code workspace} in {@code env}.
   *
   * @throws IllegalArgumentException when the environment names a companion only half, or by an
   *     address that is not a loopback editor API
   */
  static Finder of(Map<String, String> env, Path workspace) {
    String api = blankToNull(env.get(API_VARIABLE));
    String token = blankToNull(env.get(TOKEN_VARIABLE));
    if ((api == null) != (token == null)) {
      throw new IllegalArgumentException(
          API_VARIABLE
              + " and "
              + TOKEN_VARIABLE
              + " name a companion together; only "
              + (api == null ? TOKEN_VARIABLE : API_VARIABLE)
              + " is set");
    }
    Optional<Named> named = Optional.empty();
    if (api != null) {
      Matcher m = LOOPBACK_API.matcher(api);
      int port = m.matches() ? Integer.parseInt(m.group(1)) : -1;
      if (port <= 0 || port > 65_535) {
        throw new IllegalArgumentException(
            API_VARIABLE
                + " must be a loopback editor API such as http://127.0.0.1:41233/editor, not "
                + Out.shown(api));
      }
      named = Optional.of(new Named(port, token));
    }
    return new Finder(
        workspace, new DiscoveryScanner(DiscoveryLocations.fromEnvironment(env)), named);
  }

  Search find() {
    if (named.isPresent()) {
      Named n = named.get();
      return CompanionProof.holdsToken(n.port(), n.token(), PROOF_TIMEOUT)
          ? Search.found(new Target(n.port(), n.token(), false, Optional.empty()))
          : Search.none(
              "the companion "
                  + API_VARIABLE
                  + " names (port "
                  + n.port()
                  + ") does not prove that it holds "
                  + TOKEN_VARIABLE);
    }
    return scanner
        .newestServing(workspace)
        .map(a -> Search.found(Target.found(a)))
        .orElseGet(() -> Search.none("no companion serves " + workspace));
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
