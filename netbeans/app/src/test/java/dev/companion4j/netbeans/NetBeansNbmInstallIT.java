package dev.companion4j.netbeans;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import junit.framework.Test;
import org.netbeans.api.autoupdate.InstallSupport;
import org.netbeans.api.autoupdate.OperationContainer;
import org.netbeans.api.autoupdate.OperationContainer.OperationInfo;
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
 * The release's NetBeans modules as a user installs them, in a booted NetBeans without Java support
 * that never had them: their {@code .nbm} files (Tools > Plugins > Downloaded > Add Plugins) and
 * their update-centre catalog ({@code updates.xml}, Tools > Plugins > Settings) offer the companion
 * module and its Java support and nothing else. Installing the companion from the catalog through
 * NetBeans' own autoupdate services, which fetches the {@code .nbm} the catalog names, enables it
 * without a restart and its companion starts; the Java support is refused for the Java modules it
 * needs. {@link NetBeansNbmInstallWithJavaIT} installs both in a NetBeans with Java.
 */
public class NetBeansNbmInstallIT extends NbTestCase {
  static final Duration WAIT = Duration.ofSeconds(Long.getLong("companion4j.waitSeconds", 60));
  static final String COMPANION = "dev.companion4j.netbeans";
  static final String JAVA = "dev.companion4j.netbeans.java";

  /**
   * The .nbm files the modules' builds make, which the release archive carries; or an unpacked
   * release's.
   */
  private static final Map<String, Path> NBMS =
      Map.of(
          COMPANION, Path.of(System.getProperty("companion4j.nbm")),
          JAVA, Path.of(System.getProperty("companion4j.javaNbm")));

  /** Their catalog, made by the plugin's goal as the release makes it; or an unpacked release's. */
  private static final Path CATALOG = Path.of(System.getProperty("companion4j.updateCatalog"));

  public NetBeansNbmInstallIT(String name) {
    super(name);
  }

  public static Test suite() {
    // The application's "extra" cluster holds the companion modules, and its java cluster NetBeans'
    // Java support: left out, the platform and IDE clusters are a NetBeans without Java that has
    // never seen the companion.
    return NbModuleSuite.createConfiguration(NetBeansNbmInstallIT.class)
        .gui(true)
        .clusters("platform|ide")
        .enableModules(".*")
        .enableClasspathModules(false)
        .honorAutoloadEager(true)
        .suite();
  }

  public void testTheCatalogOffersBothTheCompanionInstallsWithoutARestartTheJavaSupportIsRefused()
      throws Exception {
    Map<String, UpdateUnit> offered = catalog();

    // What Available Plugins shows for the Java support: its missing Java modules, and no Install.
    OperationContainer<InstallSupport> java = OperationContainer.createForInstall();
    OperationInfo<InstallSupport> javaInfo =
        java.add(offered.get(JAVA), offered.get(JAVA).getAvailableUpdates().get(0));
    Set<String> missing = javaInfo.getBrokenDependencies();
    assertTrue(
        "refused for NetBeans' Java modules: " + missing,
        missing.stream().anyMatch(d -> d.contains("org.netbeans.modules.java.source.base")));

    install(offered.get(COMPANION));
    assertNull("the Java support stays out", Modules.getDefault().findCodeNameBase(JAVA));

    // Without NetBeans' Java support the companion declares none of the code features: the code
    // tools then say the editor cannot answer, rather than answering nothing.
    List<String> features = NetBeansIdeToolsIT.companionFeatures();
    assertTrue(features.toString(), features.contains("openFile"));
    assertTrue(
        features.toString(),
        features.stream().noneMatch(NetBeansIdeToolsIT.CODE_FEATURES::contains));
  }

  /**
   * The modules the catalog offers, by code name base, after checking that they are the companion
   * and its Java support alone (no test fixture), none installed, each at the version of its {@code
   * .nbm}.
   */
  static Map<String, UpdateUnit> catalog() throws Exception {
    for (Map.Entry<String, Path> nbm : NBMS.entrySet()) {
      assertNull(
          nbm.getKey() + " before the install",
          Modules.getDefault().findCodeNameBase(nbm.getKey()));
      assertTrue("the module at " + nbm.getValue(), Files.isRegularFile(nbm.getValue()));
    }
    assertTrue("the catalog at " + CATALOG, Files.isRegularFile(CATALOG));

    UpdateUnitProviderFactory providers = UpdateUnitProviderFactory.getDefault();
    Map<String, String> inTheNbms = new TreeMap<>();
    for (Map.Entry<String, Path> nbm : NBMS.entrySet()) {
      UpdateUnitProvider added =
          providers.create("companion4j-nbm-" + nbm.getKey(), nbm.getValue().toFile());
      for (UpdateUnit unit : added.getUpdateUnits(UpdateManager.TYPE.MODULE)) {
        inTheNbms.put(
            unit.getCodeName(), unit.getAvailableUpdates().get(0).getSpecificationVersion());
      }
      // Units merge across providers: the install must fetch what the catalog names.
      providers.remove(added);
    }
    UpdateUnitProvider centre =
        providers.create("companion4j-catalog", "Companion4J", CATALOG.toUri().toURL());
    centre.refresh(null, true);
    Map<String, UpdateUnit> offered = new TreeMap<>();
    Map<String, String> versions = new TreeMap<>();
    for (UpdateUnit unit : centre.getUpdateUnits(UpdateManager.TYPE.MODULE)) {
      assertNull(unit.getCodeName() + " installed", unit.getInstalled());
      assertEquals(unit.getCodeName(), 1, unit.getAvailableUpdates().size());
      offered.put(unit.getCodeName(), unit);
      versions.put(unit.getCodeName(), unit.getAvailableUpdates().get(0).getSpecificationVersion());
    }
    assertEquals("the catalog offers the .nbm files' modules alone", inTheNbms, versions);
    assertEquals(Set.of(COMPANION, JAVA), offered.keySet());
    return offered;
  }

  /**
   * What Available Plugins > Install does with {@code units} ticked, through the same services:
   * they install without a restart, are enabled and the companion starts.
   */
  static void install(UpdateUnit... units) throws Exception {
    OperationContainer<InstallSupport> install = OperationContainer.createForInstall();
    for (UpdateUnit unit : units) {
      OperationInfo<InstallSupport> info = install.add(unit, unit.getAvailableUpdates().get(0));
      assertEquals(
          "every module " + unit.getCodeName() + " needs is there",
          Set.of(),
          info.getBrokenDependencies());
    }
    assertEquals(List.of(), install.listInvalid());
    InstallSupport support = install.getSupport();
    InstallSupport.Validator downloaded = support.doDownload(null, false, true);
    InstallSupport.Installer validated = support.doValidate(downloaded, null);
    OperationSupport.Restarter restart = support.doInstall(validated, null);
    assertNull("installed without a restart", restart);

    for (OperationInfo<InstallSupport> info : install.listAll()) {
      UpdateElement offered = info.getUpdateElement();
      ModuleInfo module =
          Await.until(
              WAIT,
              () -> Modules.getDefault().findCodeNameBase(offered.getCodeName()),
              m -> m != null && m.isEnabled());
      assertEquals(offered.getSpecificationVersion(), module.getSpecificationVersion().toString());
    }
    Await.until(WAIT, () -> !discoveryFiles().isEmpty());
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
