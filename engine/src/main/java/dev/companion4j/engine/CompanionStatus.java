package dev.companion4j.engine;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * What a companion tells its user's own tools at {@code GET /ide/status} (bearer token required):
 * which editor, which roots, who is connected and what waits for review. The diffs' contents stay
 * out; they are the editor's to show.
 *
 * @param ide the editor behind the companion
 * @param port the companion's loopback port
 * @param workspaceRoots the roots announced to the CLIs
 * @param activeFile the focused file, or null when none is
 * @param openFiles the files in the CLIs' context, newest first
 * @param features what the editor offers beyond the IDE-mode contract, by {@link
 *     HostFeature#wireName()}
 * @param clients the CLIs connected now
 * @param pendingDiffs the proposed edits waiting for the user
 */
public record CompanionStatus(
    IdeInfo ide,
    int port,
    List<String> workspaceRoots,
    ActiveFile activeFile,
    List<String> openFiles,
    List<String> features,
    List<Client> clients,
    List<Diff> pendingDiffs) {

  /** The path of the status route on every companion. */
  public static final String PATH = "/ide/status";

  public CompanionStatus {
    workspaceRoots = List.copyOf(workspaceRoots);
    openFiles = List.copyOf(openFiles);
    features = features == null ? List.of() : List.copyOf(features);
    clients = List.copyOf(clients);
    pendingDiffs = List.copyOf(pendingDiffs);
  }

  /**
   * The focused file.
   *
   * @param path its absolute path
   * @param line the caret's 1-based line, or 0 when the editor sent no caret
   * @param character the caret's 1-based character, or 0 when the editor sent no caret
   * @param selectedText the selection, or null
   */
  public record ActiveFile(String path, int line, int character, String selectedText) {}

  /**
   * A connected CLI.
   *
   * @param name its name in its handshake
   * @param version its version in its handshake
   * @param label how the user tells it apart, see {@link ConnectedClient#label()}
   * @param program the program behind it, e.g. {@code Qwen Code}, or empty when unknown
   * @param pid its process, or 0 when unknown
   * @param terminal its terminal, e.g. {@code pts/3}, or empty
   * @param connectedAt when it connected, ISO-8601; null from an older companion
   */
  public record Client(
      String id,
      String name,
      String version,
      String label,
      String program,
      long pid,
      String terminal,
      String connectedAt) {
    /** An older companion's status names its clients by their handshake only. */
    public Client {
      version = version == null ? "" : version;
      label = label == null ? (name + (version.isEmpty() ? "" : " " + version)) : label;
      program = program == null ? "" : program;
      terminal = terminal == null ? "" : terminal;
    }

    /**
     * The one wire form of a connected CLI: {@code /ide/status} and the editor API both serve it.
     */
    public static Client of(ConnectedClient c) {
      return new Client(
          c.id(),
          c.name(),
          c.version(),
          c.label(),
          c.process().program(),
          c.process().pid(),
          c.process().terminal(),
          c.connectedAt().toString());
    }
  }

  /**
   * A pending diff and the CLI that proposed it.
   *
   * @param clientName the CLI's {@linkplain ConnectedClient#label() label}, or null when it already
   *     left; an in-process proposer's name
   * @param openedAt when it was proposed, ISO-8601
   */
  public record Diff(
      String id, String filePath, String clientId, String clientName, String openedAt) {
    /**
     * The one summary of a pending diff: {@code /ide/status} serves it, the editor API adds the
     * contents.
     */
    public static Diff of(PendingDiff d, List<ConnectedClient> clients) {
      String clientName =
          d.proposerName() != null
              ? d.proposerName()
              : clients.stream()
                  .filter(c -> c.id().equals(d.clientId()))
                  .map(ConnectedClient::label)
                  .findFirst()
                  .orElse(null);
      return new Diff(
          d.id().value(), d.filePath(), d.clientId(), clientName, d.openedAt().toString());
    }
  }

  static CompanionStatus of(
      IdeInfo ide,
      int port,
      List<Path> roots,
      IdeContext context,
      Set<HostFeature> features,
      List<ConnectedClient> clients,
      List<PendingDiff> pendingDiffs) {
    ActiveFile active =
        context
            .activeFile()
            .map(
                f ->
                    new ActiveFile(
                        f.path(),
                        f.cursor() == null ? 0 : f.cursor().line(),
                        f.cursor() == null ? 0 : f.cursor().character(),
                        f.selectedText()))
            .orElse(null);
    return new CompanionStatus(
        ide,
        port,
        roots.stream().map(Object::toString).toList(),
        active,
        context.openFiles().stream().map(IdeContext.OpenFile::path).toList(),
        features.stream().map(HostFeature::wireName).toList(),
        clients.stream().map(Client::of).toList(),
        pendingDiffs.stream().map(d -> Diff.of(d, clients)).toList());
  }
}
