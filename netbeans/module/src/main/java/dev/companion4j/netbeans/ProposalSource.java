package dev.companion4j.netbeans;

import java.io.Reader;
import java.io.StringReader;
import java.io.Writer;
import org.netbeans.api.diff.Difference;
import org.netbeans.api.diff.StreamSource;
import org.openide.util.Lookup;
import org.openide.util.lookup.Lookups;

/** The proposed side of a diff view: editable, backed by the proposal's in-memory document. */
final class ProposalSource extends StreamSource {
  private final String name;
  private final String mime;
  private final ProposalDocument proposal;
  private final String proposer;

  ProposalSource(String name, String mime, ProposalDocument proposal, String proposer) {
    this.name = name;
    this.mime = mime;
    this.proposal = proposal;
    this.proposer = proposer;
  }

  @Override
  public String getName() {
    return name;
  }

  @Override
  public String getTitle() {
    return "Proposed by " + proposer + " (editable)";
  }

  @Override
  public String getMIMEType() {
    return mime;
  }

  @Override
  public Reader createReader() {
    return new StringReader(proposal.text());
  }

  @Override
  public Writer createWriter(Difference[] conflicts) {
    return null;
  }

  @Override
  public boolean isEditable() {
    return true;
  }

  @Override
  public Lookup getLookup() {
    return Lookups.fixed(proposal.file());
  }
}
