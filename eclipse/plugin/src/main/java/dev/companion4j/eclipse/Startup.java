package dev.companion4j.eclipse;

import org.eclipse.ui.IStartup;

/** Starts the companion once the workbench is up (on the workbench's early-startup thread). */
public final class Startup implements IStartup {
  @Override
  public void earlyStartup() {
    ProjectImport.fromSystemProperty();
    Activator.instance().startCompanion();
  }
}
