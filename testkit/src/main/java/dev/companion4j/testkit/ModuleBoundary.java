package dev.companion4j.testkit;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import java.util.List;

/**
 * The boundary between modules, checked on compiled classes: a package named {@code internal} (and
 * everything below it) belongs to the module whose package holds it, and no class outside that
 * module uses it.
 *
 * <p>A module descriptor cannot hold this for every module: {@code cli}, {@code extension} and the
 * NetBeans module are not JPMS modules, their users put the engine on the class path, and the
 * shaded jar strips the descriptors. So each module's tests check the classes they can see.
 */
public final class ModuleBoundary {
  private static final String PROJECT = "dev.companion4j.";

  private ModuleBoundary() {}

  /** No class uses an {@code internal} package of the project from outside the package's module. */
  public static ArchRule internalPackagesStayInTheirModule() {
    return ArchRuleDefinition.classes()
        .should(
            new ArchCondition<JavaClass>("use no internal package of another module") {
              @Override
              public void check(JavaClass user, ConditionEvents events) {
                for (Dependency dependency : user.getDirectDependenciesFromSelf()) {
                  String owner = owner(dependency.getTargetClass().getPackageName());
                  String from = user.getPackageName();
                  if (owner != null && !from.equals(owner) && !from.startsWith(owner + ".")) {
                    events.add(
                        SimpleConditionEvent.violated(dependency, dependency.getDescription()));
                  }
                }
              }
            })
        .because("internal packages are hidden behind their module's API");
  }

  /** The package of the module an internal package belongs to, or null for any other package. */
  private static String owner(String packageName) {
    if (!packageName.startsWith(PROJECT)) {
      return null;
    }
    List<String> segments = List.of(packageName.split("\\."));
    int internal = segments.indexOf("internal");
    return internal < 0 ? null : String.join(".", segments.subList(0, internal));
  }
}
