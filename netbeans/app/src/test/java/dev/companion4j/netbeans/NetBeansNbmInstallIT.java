package dev.companion4j.netbeans;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import junit.framework.Test;
import org.netbeans.api.autoupdate.InstallSupport;
import org.netbeans.api.autoupdate.OperationContainer;
import org.netbeans.api.autoupdate.OperationSupport;
import org.netbeans.api.autoupdate.UpdateElement;
import org.netbeans.api.autoupdate.UpdateManager;
import org.netbeans.api.autoupdate.UpdateUnit;
import org.netbeans.api.autoupdate.UpdateUnitProvider;
import org.netbeans.api.autoupdate.UpdateUnitProviderFactory;
import org.netbeans.junit.NbModuleSuite;
import org.netbeans.junit.NbTestCase;
import org.openide.modules.ModuleInfo;
import org.openide.modules.Modules;

/**
 * The release's NetBeans module as a user installs it: a booted platform without the companion
 * is given its {@code .nbm} (Tools > Plugins > Downloaded > Add Plugins), and installing it through
 * NetBeans' own autoupdate services enables the module without a restart; its companion starts.
 */
public class NetBeansNbmInstallIT extends NbTestCase {
  private static final Duration WAIT = Duration.ofSeconds(Long.getLong("companion4j.waitSeconds", 60));
  private static final String CODE_NAME = "dev.companion4j.netbeans";
  /** The .nbm the module's build makes, which the release archive carries; or an unpacked release's. */
  private static final Path NBM = Path.of(System.getProperty("companion4j.nbm"));

  public NetBeansNbmInstallIT(String name) {
    super(name);
  }

  public static Test suite() {
    // The application's "extra" cluster holds the companion module (and the Java fixtures): left
    // out, the platform and IDE clusters are a NetBeans that has never seen it.
    return NbModuleSuite.createConfiguration(NetBeansNbmInstallIT.class)
        .gui(true)
        .clusters("platform|ide")
        .enableModules(".*")
        .enableClasspathModules(false)
        .honorAutoloadEager(true)
        .suite();
  }

  public void testTheNbmInstallsWithoutARestartAndStartsTheCompanion() throws Exception {
    assertNull("no companion module before the install", Modules.getDefault().findCodeNameBase(CODE_NAME));
    assertTrue("the module at " + NBM, Files.isRegularFile(NBM));

    UpdateUnitProvider added = UpdateUnitProviderFactory.getDefault().create("companion4j-release", NBM.toFile());
    UpdateUnit unit = added.getUpdateUnits(UpdateManager.TYPE.MODULE).stream()
        .filter(u -> CODE_NAME.equals(u.getCodeName()))
        .findFirst().orElseThrow(() -> new AssertionError(NBM + " holds " + CODE_NAME));
    assertNull(unit.getInstalled());
    UpdateElement offered = unit.getAvailableUpdates().get(0);

    // What Downloaded > Install does, through the same services.
    OperationContainer<InstallSupport> install = OperationContainer.createForInstall();
    install.add(unit, offered);
    assertEquals("every module it needs is in the platform", List.of(), install.listInvalid());
    InstallSupport support = install.getSupport();
    InstallSupport.Validator downloaded = support.doDownload(null, false, true);
    InstallSupport.Installer validated = support.doValidate(downloaded, null);
    OperationSupport.Restarter restart = support.doInstall(validated, null);
    assertNull("installed without a restart", restart);

    ModuleInfo module = Await.until(WAIT, () -> Modules.getDefault().findCodeNameBase(CODE_NAME), m -> m != null && m.isEnabled());
    assertEquals(offered.getSpecificationVersion(), module.getSpecificationVersion().toString());
    Await.until(WAIT, () -> !discoveryFiles().isEmpty());
  }

  /** The Gemini CLI discovery files the companion of this IDE (this process) writes when it starts. */
  private static List<Path> discoveryFiles() throws IOException {
    Path dir = Path.of(System.getenv("TMPDIR"), "gemini", "ide");
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    String prefix = "gemini-ide-server-" + ProcessHandle.current().pid() + "-";
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().startsWith(prefix)).toList();
    }
  }
}
