package dev.companion4j.netbeans;

import dev.companion4j.engine.ChangeReview;
import dev.companion4j.engine.DiffId;
import dev.companion4j.engine.DiffViewException;
import dev.companion4j.engine.PendingChange;
import java.awt.EventQueue;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The review windows of one companion's changes of several files, keyed by the id of the change
 * each shows. {@link #show} and {@link #close} run on the engine thread; the windows live on the
 * EDT.
 */
final class ChangeWindows {

  /**
   * The changes under review: in here from showChange until answered or closed, whichever first.
   */
  private final Map<DiffId, Review> reviews = new ConcurrentHashMap<>();

  /** One change's review; {@code window} is set and read on the EDT only. */
  private static final class Review {
    ChangeTopComponent window;
  }

  void show(PendingChange change, ChangeReview answers) throws DiffViewException {
    // As for a diff: both sides' documents are prepared off the EDT.
    List<ProposalDocument> proposals = new ArrayList<>();
    List<OriginalSource> befores = new ArrayList<>();
    try {
      for (PendingChange.File file : change.files()) {
        ProposalDocument proposal = ProposalDocument.create(file.path(), file.newContent());
        proposals.add(proposal);
        befores.add(OriginalSource.of(file, proposal.mimeType()));
      }
    } catch (IOException e) {
      proposals.forEach(ProposalDocument::discard);
      throw new DiffViewException("could not prepare the change: " + e.getMessage(), e);
    }
    Review review = new Review();
    reviews.put(change.id(), review);
    DiffWindows.openOnEdt(
        () ->
            review.window =
                ChangeTopComponent.open(
                    change, befores, proposals, answers, () -> reviews.remove(change.id())),
        () -> {
          reviews.remove(change.id());
          proposals.forEach(ProposalDocument::discard);
        },
        "review window of a change");
  }

  /**
   * Closes the window of {@code change} without an answer, if the user has not answered; never
   * waits for the EDT: the window closes when the EDT gets to it, after its own opening.
   */
  void close(PendingChange change) {
    Review review = reviews.remove(change.id());
    if (review != null) {
      EventQueue.invokeLater(
          () -> {
            if (review.window != null) {
              review.window.closeWithoutAnswer();
            }
          });
    }
  }
}
