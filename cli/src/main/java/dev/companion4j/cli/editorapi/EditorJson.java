package dev.companion4j.cli.editorapi;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.companion4j.engine.ChangeOutcome;
import dev.companion4j.engine.Companion;
import dev.companion4j.engine.CompanionStatus;
import dev.companion4j.engine.ConnectedClient;
import dev.companion4j.engine.ContextUpdate;
import dev.companion4j.engine.DiffOutcome;
import dev.companion4j.engine.FileDiagnostics;
import dev.companion4j.engine.HostFeature;
import dev.companion4j.engine.IdeInfo;
import dev.companion4j.engine.PendingChange;
import dev.companion4j.engine.PendingDiff;
import java.util.List;

/**
 * The editor API's JSON shapes, in one place so the page, the editor plugins and docs/editor-api.md
 * agree. They are this API's own: the CLIs' wire may change without them.
 */
final class EditorJson {
  private EditorJson() {}

  /**
   * A pending diff; {@code clientName} is its CLI's {@linkplain ConnectedClient#label() label},
   * left out when the CLI already left. {@code change} is {@code new} for a file that does not
   * exist, {@code deleted} for a proposal that removes all of a file's text, else {@code modified}.
   */
  record Diff(
      String id,
      String filePath,
      String change,
      String originalContent,
      String newContent,
      String openedAt,
      String clientId,
      @JsonInclude(JsonInclude.Include.NON_NULL) String clientName) {

    static Diff of(PendingDiff d, List<ConnectedClient> clients) {
      CompanionStatus.Diff summary = CompanionStatus.Diff.of(d, clients);
      return new Diff(
          summary.id(),
          summary.filePath(),
          change(d),
          d.originalContent(),
          d.newContent(),
          summary.openedAt(),
          summary.clientId(),
          summary.clientName());
    }

    private static String change(PendingDiff d) {
      if (d.isNewFile()) {
        return "new";
      }
      return d.newContent().isEmpty() && !d.originalContent().isEmpty() ? "deleted" : "modified";
    }
  }

  /** The {@code diffClosed} event. */
  record ClosedDiff(String id, String filePath, String outcome) {
    static ClosedDiff of(PendingDiff d, DiffOutcome outcome) {
      return new ClosedDiff(d.id().value(), d.filePath(), Outcome.of(outcome).wireName);
    }
  }

  /** A pending change of several files, each file with both its texts. */
  record Change(String id, String proposerName, String openedAt, List<ChangeFile> files) {
    static Change of(PendingChange c) {
      return new Change(
          c.id().value(),
          c.proposerName(),
          c.openedAt().toString(),
          c.files().stream().map(ChangeFile::of).toList());
    }
  }

  /** One file of a change; {@code change} as a diff's, {@code new} for a file it creates. */
  record ChangeFile(String path, String change, String originalContent, String newContent) {
    static ChangeFile of(PendingChange.File f) {
      String change;
      if (!f.existed()) {
        change = "new";
      } else {
        change =
            f.newContent().isEmpty() && !f.originalContent().isEmpty() ? "deleted" : "modified";
      }
      return new ChangeFile(f.path().toString(), change, f.originalContent(), f.newContent());
    }
  }

  /**
   * The {@code changeClosed} event; {@code changedOnDisk} names the files that ended it so, and is
   * left out otherwise.
   */
  record ClosedChange(
      String id,
      String outcome,
      @JsonInclude(JsonInclude.Include.NON_NULL) List<String> changedOnDisk) {
    static ClosedChange of(PendingChange c, ChangeOutcome outcome) {
      return new ClosedChange(c.id().value(), wireName(outcome), filesChangedOnDisk(outcome));
    }
  }

  /** How a change ended, as the API names it. */
  static String wireName(ChangeOutcome outcome) {
    if (outcome instanceof ChangeOutcome.Accepted) {
      return "accepted";
    } else if (outcome instanceof ChangeOutcome.Rejected) {
      return "rejected";
    } else if (outcome instanceof ChangeOutcome.ChangedOnDisk) {
      return "changedOnDisk";
    }
    return "stopped";
  }

  /** The files that changed on disk, for that outcome only; null otherwise. */
  static List<String> filesChangedOnDisk(ChangeOutcome outcome) {
    return outcome instanceof ChangeOutcome.ChangedOnDisk c
        ? c.paths().stream().map(Object::toString).toList()
        : null;
  }

  /** The answer to an accept or reject of a change that did not end as asked. */
  record ChangeRefusal(
      String error,
      String outcome,
      @JsonInclude(JsonInclude.Include.NON_NULL) List<String> changedOnDisk) {}

  record State(
      IdeInfo ideInfo,
      List<String> workspaceRoots,
      List<String> features,
      List<CompanionStatus.Client> clients,
      ContextUpdate context,
      List<Diff> pendingDiffs,
      List<Change> pendingChanges,
      List<FileDiagnostics> diagnostics) {
    static State of(Companion companion) {
      List<ConnectedClient> clients = companion.clients();
      return new State(
          companion.ideInfo(),
          companion.workspaceRoots().stream().map(Object::toString).toList(),
          companion.features().stream().map(HostFeature::wireName).toList(),
          clients.stream().map(CompanionStatus.Client::of).toList(),
          ContextUpdate.of(companion.context()),
          companion.pendingDiffs().stream().map(d -> Diff.of(d, clients)).toList(),
          companion.pendingChanges().stream().map(Change::of).toList(),
          companion.diagnostics());
    }
  }

  /** The answer to a request for a diff that is no longer pending. */
  record Refusal(String error, String outcome) {}

  /** How a diff ended, as the API names and explains it. */
  enum Outcome {
    ACCEPTED("accepted", "it was accepted"),
    REJECTED("rejected", "it was rejected"),
    REPLACED("replaced", "it was replaced by a newer proposal"),
    CLOSED_BY_CLIENT("closedByClient", "it was closed by the CLI"),
    CLIENT_GONE("clientGone", "the CLI that proposed this edit has left; nothing was written"),
    STOPPED("stopped", "it was ended when the companion stopped");

    final String wireName;

    /** Why an answer to a diff that ended this way changed nothing. */
    final String why;

    Outcome(String wireName, String why) {
      this.wireName = wireName;
      this.why = why;
    }

    static Outcome of(DiffOutcome outcome) {
      if (outcome instanceof DiffOutcome.Accepted) {
        return ACCEPTED;
      } else if (outcome instanceof DiffOutcome.Rejected) {
        return REJECTED;
      } else if (outcome instanceof DiffOutcome.Replaced) {
        return REPLACED;
      } else if (outcome instanceof DiffOutcome.ClosedByClient) {
        return CLOSED_BY_CLIENT;
      } else if (outcome instanceof DiffOutcome.ClientGone) {
        return CLIENT_GONE;
      } else if (outcome instanceof DiffOutcome.Stopped) {
        return STOPPED;
      }
      throw new IllegalArgumentException("unknown outcome " + outcome);
    }
  }
}
