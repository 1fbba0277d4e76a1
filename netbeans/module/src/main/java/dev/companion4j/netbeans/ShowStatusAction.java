package dev.companion4j.netbeans;

import java.awt.event.ActionEvent;
import java.awt.event.ActionListener;
import org.openide.awt.ActionID;
import org.openide.awt.ActionReference;
import org.openide.awt.ActionRegistration;

/** Tools > CLI Companion...: the status dialog for users who hide the status bar. */
@ActionID(category = "Tools", id = "dev.companion4j.netbeans.ShowStatusAction")
@ActionRegistration(displayName = "CLI Companion (Qwen Code / Gemini)...")
@ActionReference(path = "Menu/Tools", position = 1450)
public final class ShowStatusAction implements ActionListener {
  @Override
  public void actionPerformed(ActionEvent e) {
    StatusDialog.show();
  }
}
