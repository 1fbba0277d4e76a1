package dev.companion4j.cli;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.companion4j.testkit.ModuleBoundary;

/**
 * The engine, the daemon client, the extension, this command and their tests, as this class path
 * holds them.
 */
@AnalyzeClasses(packages = "dev.companion4j")
class ModuleBoundaryTest {
  @ArchTest
  static final ArchRule internalPackagesStayInTheirModule =
      ModuleBoundary.internalPackagesStayInTheirModule();
}
