package dev.companion4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The command is shipped as one class-path jar, where module descriptors do not apply; so the
 * boundary the engine and daemon modules draw is checked here on the compiled classes: nothing in
 * this module may use their hidden packages.
 */
class ModuleBoundaryTest {

  @Test
  void noClassOfTheCommandUsesAHiddenPackageOfTheEngineOrTheDaemon() throws Exception {
    Path classes = Path.of(ServeCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
    StringWriter out = new StringWriter();

    int status = jdeps.run(new PrintWriter(out), new PrintWriter(out),
        "-verbose:class", "-e", "dev\\.companion4j\\.(engine|daemon)\\..*", classes.toString());

    assertThat(status).as(out.toString()).isZero();
    assertThat(out.toString()).as("jdeps found uses of the engine and daemon").contains("dev.companion4j.engine.Companion");
    assertThat(out.toString().lines().filter(l -> l.contains("->") && l.contains(".internal.")))
        .as("uses of hidden packages")
        .isEmpty();
  }
}
