package dev.companion4j.netbeans;

import java.util.logging.Logger;
import org.openide.awt.StatusDisplayer;
import org.openide.windows.TopComponent;

/**
 * A window in which the user answers one proposal once: Accept, Reject, or closing the window
 * (which rejects); or the engine closes it without an answer. Lives on the EDT.
 */
abstract class ReviewTopComponent extends TopComponent {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = Logger.getLogger(ReviewTopComponent.class.getName());

  /** How long an answer that was not taken stays in the status line, above routine messages. */
  private static final int MESSAGE_MILLIS = 30_000;

  /** Tells the window registry this proposal needs no closing by the engine any more. */
  private final transient Runnable onEnded;

  private boolean answered;

  ReviewTopComponent(Runnable onEnded) {
    this.onEnded = onEnded;
  }

  /** Sends the user's rejection to the proposal's review. */
  abstract void sendRejection();

  /** Lets go of the proposal's documents once the window is closed. */
  abstract void discard();

  /**
   * Starts the user's answer.
   *
   * @return false when the proposal was answered or ended already: then nothing is to be sent
   */
  final boolean answering() {
    if (answered) {
      return false;
    }
    answered = true;
    onEnded.run();
    return true;
  }

  final void reject() {
    if (answering()) {
      // A rejection that comes too late changes nothing the user needs to hear of.
      sendRejection();
      close();
    }
  }

  /**
   * The review ended without the user's answer: its proposer closed, replaced or withdrew it or
   * left, or the companion stopped.
   */
  final void closeWithoutAnswer() {
    answered = true;
    close();
  }

  @Override
  protected final void componentClosed() {
    super.componentClosed();
    if (answering()) {
      sendRejection();
    }
    discard();
  }

  /** Tells the user, in the status line, why an answer was not taken. */
  static void report(String message) {
    LOG.info(message);
    StatusDisplayer.getDefault()
        .setStatusText(message, StatusDisplayer.IMPORTANCE_ANNOTATION)
        .clear(MESSAGE_MILLIS);
  }

  @Override
  public int getPersistenceType() {
    return PERSISTENCE_NEVER;
  }
}
