package dev.companion4j.netbeans;

import static dev.companion4j.netbeans.NetBeansNbmInstallIT.COMPANION;
import static dev.companion4j.netbeans.NetBeansNbmInstallIT.JAVA;
import static dev.companion4j.netbeans.NetBeansNbmInstallIT.WAIT;

import java.util.List;
import java.util.Map;
import junit.framework.Test;
import org.netbeans.api.autoupdate.UpdateUnit;
import org.netbeans.junit.NbModuleSuite;
import org.netbeans.junit.NbTestCase;

/**
 * The release's NetBeans modules as a user installs them in a NetBeans with Java support that never
 * had them: both, ticked in the catalog's Available Plugins, install without a restart and the
 * companion declares the code features its Java support answers.
 */
public class NetBeansNbmInstallWithJavaIT extends NbTestCase {
  public NetBeansNbmInstallWithJavaIT(String name) {
    super(name);
  }

  public static Test suite() {
    // NetBeans' Java support is the java cluster (with the fixtures for what Maven Central lacks);
    // the "extra" cluster, which holds the companion modules, is left out.
    return NbModuleSuite.createConfiguration(NetBeansNbmInstallWithJavaIT.class)
        .gui(true)
        .clusters("platform|ide|extide|java")
        .enableModules(".*")
        .enableClasspathModules(false)
        .honorAutoloadEager(true)
        .suite();
  }

  public void testBothInstallFromTheCatalogWithoutARestartAndTheCodeFeaturesAreDeclared()
      throws Exception {
    Map<String, UpdateUnit> offered = NetBeansNbmInstallIT.catalog();

    NetBeansNbmInstallIT.install(offered.get(COMPANION), offered.get(JAVA));

    List<String> features =
        Await.until(
            WAIT,
            NetBeansIdeToolsIT::companionFeatures,
            f -> f.containsAll(NetBeansIdeToolsIT.CODE_FEATURES));
    assertTrue(features.toString(), features.contains("openFile"));
  }
}
