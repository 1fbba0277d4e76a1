package dev.companion4j.eclipse;

import java.util.function.Consumer;
import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.ui.IEditorPart;
import org.eclipse.ui.handlers.HandlerUtil;

/** Accept or Reject, as the key bindings run them, on the proposal in the active compare editor. */
public abstract class ProposalHandler extends AbstractHandler {
  private final Consumer<ProposalInput> answer;

  ProposalHandler(Consumer<ProposalInput> answer) {
    this.answer = answer;
  }

  @Override
  public final Object execute(ExecutionEvent event) {
    IEditorPart editor = HandlerUtil.getActiveEditor(event);
    if (editor != null && editor.getEditorInput() instanceof ProposalInput proposal) {
      answer.accept(proposal);
    }
    return null;
  }

  /** The handler of the Accept command (plugin.xml). */
  public static final class Accept extends ProposalHandler {
    public Accept() {
      super(ProposalInput::accept);
    }
  }

  /** The handler of the Reject command (plugin.xml). */
  public static final class Reject extends ProposalHandler {
    public Reject() {
      super(ProposalInput::reject);
    }
  }
}
