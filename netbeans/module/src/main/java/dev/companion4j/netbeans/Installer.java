package dev.companion4j.netbeans;

import org.openide.modules.ModuleInstall;

/**
 * Ties the companion to the module's life: it runs while the module is enabled and stops, removing
 * its discovery files, when the IDE exits or the module is disabled or uninstalled; so does the
 * daemon chat, with a daemon it started.
 */
public final class Installer extends ModuleInstall {
  private static final long serialVersionUID = 1L;

  @Override
  public void restored() {
    CompanionService.getDefault().start();
  }

  @Override
  public void close() {
    ChatService.getDefault().shutdown();
    CompanionService.getDefault().shutdown();
  }

  @Override
  public void uninstalled() {
    ChatService.getDefault().shutdown();
    CompanionService.getDefault().shutdown();
  }
}
