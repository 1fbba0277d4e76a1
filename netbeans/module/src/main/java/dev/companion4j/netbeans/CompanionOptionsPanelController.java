package dev.companion4j.netbeans;

import dev.companion4j.engine.discovery.DiscoveryTarget;
import java.beans.PropertyChangeListener;
import java.beans.PropertyChangeSupport;
import java.util.EnumSet;
import java.util.Set;
import javax.swing.BorderFactory;
import javax.swing.BoxLayout;
import javax.swing.JButton;
import javax.swing.JCheckBox;
import javax.swing.JComponent;
import javax.swing.JLabel;
import javax.swing.JPanel;
import org.netbeans.spi.options.OptionsPanelController;
import org.openide.util.HelpCtx;
import org.openide.util.Lookup;

/** Tools > Options > Miscellaneous > CLI Companion: which CLIs may find the IDE, and a restart. */
@OptionsPanelController.SubRegistration(
    location = "Advanced",
    id = "Companion4J",
    displayName = "CLI Companion",
    keywords = "qwen gemini cli companion ide mode",
    keywordsCategory = "Advanced/Companion4J")
public final class CompanionOptionsPanelController extends OptionsPanelController {
  static final String QWEN_NAME = "companion4j.qwen";
  static final String GEMINI_NAME = "companion4j.gemini";
  static final String RESTART_NAME = "companion4j.restart";

  private final PropertyChangeSupport pcs = new PropertyChangeSupport(this);
  private JPanel panel;
  private JCheckBox qwen;
  private JCheckBox gemini;
  private boolean changed;

  @Override
  public void update() {
    component();
    Set<DiscoveryTarget> targets = CompanionSettings.targets();
    qwen.setSelected(targets.contains(DiscoveryTarget.QWEN_CODE));
    gemini.setSelected(targets.contains(DiscoveryTarget.GEMINI_CLI));
    changed = false;
  }

  @Override
  public void applyChanges() {
    if (!changed) {
      return;
    }
    Set<DiscoveryTarget> targets = selected();
    if (!targets.equals(CompanionSettings.targets())) {
      CompanionSettings.setTargets(targets);
      // Discovery files are chosen when the engine starts.
      CompanionService.getDefault().restart();
    }
    changed = false;
  }

  @Override
  public void cancel() {
    changed = false;
  }

  @Override
  public boolean isValid() {
    return true;
  }

  @Override
  public boolean isChanged() {
    return changed;
  }

  @Override
  public JComponent getComponent(Lookup masterLookup) {
    return component();
  }

  @Override
  public HelpCtx getHelpCtx() {
    return HelpCtx.DEFAULT_HELP;
  }

  @Override
  public void addPropertyChangeListener(PropertyChangeListener l) {
    pcs.addPropertyChangeListener(l);
  }

  @Override
  public void removePropertyChangeListener(PropertyChangeListener l) {
    pcs.removePropertyChangeListener(l);
  }

  private Set<DiscoveryTarget> selected() {
    Set<DiscoveryTarget> targets = EnumSet.noneOf(DiscoveryTarget.class);
    if (qwen.isSelected()) {
      targets.add(DiscoveryTarget.QWEN_CODE);
    }
    if (gemini.isSelected()) {
      targets.add(DiscoveryTarget.GEMINI_CLI);
    }
    return targets;
  }

  private JPanel component() {
    if (panel != null) {
      return panel;
    }
    panel = new JPanel();
    panel.setLayout(new BoxLayout(panel, BoxLayout.Y_AXIS));
    panel.setBorder(BorderFactory.createEmptyBorder(8, 8, 8, 8));
    panel.add(new JLabel("Let these CLIs, started in a terminal inside an open project, find this IDE:"));
    qwen = new JCheckBox("Qwen Code (qwen)");
    qwen.setName(QWEN_NAME);
    gemini = new JCheckBox("Gemini CLI (gemini)");
    gemini.setName(GEMINI_NAME);
    for (JCheckBox box : new JCheckBox[] {qwen, gemini}) {
      box.addActionListener(e -> {
        boolean was = changed;
        changed = true;
        pcs.firePropertyChange(OptionsPanelController.PROP_CHANGED, was, true);
      });
      panel.add(box);
    }
    JButton restart = new JButton("Restart Companion");
    restart.setName(RESTART_NAME);
    restart.setToolTipText("Stop the companion, disconnecting the CLIs, and start it on a new port");
    restart.addActionListener(e -> CompanionService.getDefault().restart());
    panel.add(javax.swing.Box.createVerticalStrut(8));
    panel.add(restart);
    return panel;
  }
}
