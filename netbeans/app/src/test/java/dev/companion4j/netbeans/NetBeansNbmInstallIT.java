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
 * The release's NetBeans module as a user installs it, in a booted platform that never had it: its
 * {@code .nbm} (Tools > Plugins > Downloaded > Add Plugins) and its update-centre catalog ({@code
 * updates.xml}, Tools > Plugins > Settings) offer the same module and nothing else, and installing
 * it from the catalog through NetBeans' own autoupdate services, which fetches the {@code .nbm} the
 * catalog names, enables the module without a restart; its companion starts.
 */
public class NetBeansNbmInstallIT extends NbTestCase {
  private static final Duration WAIT =
      Duration.ofSeconds(Long.getLong("companion4j.waitSeconds", 60));
  private static final String CODE_NAME = "dev.companion4j.netbeans";

  /**
   * The .nbm the module's build makes, which the release archive carries; or an unpacked release's.
   */
  private static final Path NBM = Path.of(System.getProperty("companion4j.nbm"));

  /**
   * That module's catalog, made by the plugin's goal as the release makes it; or an unpacked
   * release's.
   */
  private static final Path CATALOG = Path.of(System.getProperty("companion4j.updateCatalog"));

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

  public void
      testTheCatalogAndTheNbmOfferTheModuleWhichInstallsWithoutARestartAndStartsTheCompanion()
          throws Exception {
    assertNull(
        "no companion module before the install", Modules.getDefault().findCodeNameBase(CODE_NAME));
    assertTrue("the module at " + NBM, Files.isRegularFile(NBM));
    assertTrue("the catalog at " + CATALOG, Files.isRegularFile(CATALOG));

    UpdateUnitProviderFactory providers = UpdateUnitProviderFactory.getDefault();
    UpdateUnitProvider added = providers.create("companion4j-nbm", NBM.toFile());
    String inTheNbm = only(added).getAvailableUpdates().get(0).getSpecificationVersion();
    // Units merge across providers: the install below must fetch what the catalog names.
    providers.remove(added);
    UpdateUnitProvider centre =
        providers.create("companion4j-catalog", "Companion4J", CATALOG.toUri().toURL());
    centre.refresh(null, true);
    UpdateUnit unit = only(centre);
    assertNull(unit.getInstalled());
    assertEquals(1, unit.getAvailableUpdates().size());
    UpdateElement offered = unit.getAvailableUpdates().get(0);
    assertEquals(inTheNbm, offered.getSpecificationVersion());

    // What Available Plugins > Install does, through the same services.
    OperationContainer<InstallSupport> install = OperationContainer.createForInstall();
    install.add(unit, offered);
    assertEquals("every module it needs is in the platform", List.of(), install.listInvalid());
    InstallSupport support = install.getSupport();
    InstallSupport.Validator downloaded = support.doDownload(null, false, true);
    InstallSupport.Installer validated = support.doValidate(downloaded, null);
    OperationSupport.Restarter restart = support.doInstall(validated, null);
    assertNull("installed without a restart", restart);

    ModuleInfo module =
        Await.until(
            WAIT,
            () -> Modules.getDefault().findCodeNameBase(CODE_NAME),
            m -> m != null && m.isEnabled());
    assertEquals(offered.getSpecificationVersion(), module.getSpecificationVersion().toString());
    Await.until(WAIT, () -> !discoveryFiles().isEmpty());

    // Without NetBeans' Java support the companion declares none of the code features: the code
    // tools then say the editor cannot answer, rather than answering nothing.
    List<String> features = NetBeansIdeToolsIT.companionFeatures();
    assertTrue(features.toString(), features.contains("openFile"));
    assertFalse(features.toString(), features.contains("definition"));
    assertFalse(features.toString(), features.contains("rename"));
  }

  /** The one module {@code provider} offers: the companion, and no other (no test fixture). */
  private static UpdateUnit only(UpdateUnitProvider provider) {
    List<UpdateUnit> units = provider.getUpdateUnits(UpdateManager.TYPE.MODULE);
    assertEquals(
        provider.getName() + " offers the companion alone",
        List.of(CODE_NAME),
        units.stream().map(UpdateUnit::getCodeName).toList());
    return units.get(0);
  }

  /**
   * The Gemini CLI discovery files the companion of this IDE (this process) writes when it starts.
   */
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
