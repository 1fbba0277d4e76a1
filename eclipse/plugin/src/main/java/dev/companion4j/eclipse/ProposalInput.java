package dev.companion4j.eclipse;

import dev.companion4j.engine.PendingDiff;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import org.eclipse.compare.CompareConfiguration;
import org.eclipse.compare.CompareEditorInput;
import org.eclipse.compare.IEditableContent;
import org.eclipse.compare.IStreamContentAccessor;
import org.eclipse.compare.ITypedElement;
import org.eclipse.compare.structuremergeviewer.DiffNode;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.swt.graphics.Image;

/**
 * A proposal in Eclipse's compare editor: the file as the CLI read it on the left, read-only; the
 * proposal on the right, editable. Lives on the UI thread.
 */
final class ProposalInput extends CompareEditorInput {
  private final PendingDiff diff;
  private final Side proposal;

  ProposalInput(PendingDiff diff) {
    super(new CompareConfiguration());
    this.diff = diff;
    String name = diff.path().getFileName().toString();
    this.proposal = new Side(name, diff.newContent(), true);
    CompareConfiguration config = getCompareConfiguration();
    // Eclipse's compare preference swaps the sides by default (the proposal would show left):
    // this editor keeps the disk left and the proposal right, as every editor of the project does.
    config.setProperty(CompareConfiguration.MIRRORED, Boolean.FALSE);
    config.setLeftLabel(diff.isNewFile() ? name + " (new file)" : name + " (on disk)");
    config.setLeftEditable(false);
    config.setRightLabel(name + " (proposed by " + proposer() + ")");
    config.setRightEditable(true);
    setTitle(name + " (Before ↔ After)");
  }

  PendingDiff diff() {
    return diff;
  }

  /** The right side as the user left it, edits not yet flushed from the viewer included. */
  String proposedText() {
    try {
      saveChanges(new NullProgressMonitor());
    } catch (CoreException e) {
      // The viewer could not hand over its text; what it last flushed is still the answer.
    }
    return proposal.text;
  }

  private String proposer() {
    return diff.proposerName() == null ? "the CLI" : diff.proposerName();
  }

  @Override
  protected Object prepareInput(IProgressMonitor monitor)
      throws InvocationTargetException, InterruptedException {
    String name = diff.path().getFileName().toString();
    return new DiffNode(new Side(name, diff.originalContent(), false), proposal);
  }

  /**
   * One side of the comparison, held in memory: the proposal is no file until the CLI writes it.
   */
  private static final class Side
      implements ITypedElement, IStreamContentAccessor, IEditableContent {
    private final String name;
    private final boolean editable;
    private String text;

    Side(String name, String text, boolean editable) {
      this.name = name;
      this.text = text;
      this.editable = editable;
    }

    @Override
    public String getName() {
      return name;
    }

    @Override
    public Image getImage() {
      return null;
    }

    /** The extension picks the text viewer (Java's for .java when JDT is there). */
    @Override
    public String getType() {
      int dot = name.lastIndexOf('.');
      return dot < 0 ? ITypedElement.TEXT_TYPE : name.substring(dot + 1);
    }

    @Override
    public InputStream getContents() {
      return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public boolean isEditable() {
      return editable;
    }

    @Override
    public ITypedElement replace(ITypedElement dest, ITypedElement src) {
      return dest;
    }

    @Override
    public void setContent(byte[] newContent) {
      text = new String(newContent, StandardCharsets.UTF_8);
    }
  }
}
