package dev.companion4j.netbeans;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.companion4j.testkit.ModuleBoundary;

/** The NetBeans module with the engine and the daemon client it uses. */
@AnalyzeClasses(packages = "dev.companion4j")
class ModuleBoundaryTest {
  @ArchTest
  static final ArchRule internalPackagesStayInTheirModule =
      ModuleBoundary.internalPackagesStayInTheirModule();
}
