package dev.companion4j.netbeans;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.openide.util.Lookup;

/**
 * The companion module's running engine as the tests reach it: the module keeps its classes to
 * itself, so through the IDE's class loader and reflection.
 */
final class ModuleAccess {
  private ModuleAccess() {}

  /** The running companion ({@code dev.companion4j.engine.Companion}), or null. */
  static Object companion() throws Exception {
    return call(service(), "companion");
  }

  /**
   * The running companion once it serves {@code root} as a workspace root (the project is open and
   * the companion has heard of it).
   */
  static Object awaitCompanionServing(Path root, Duration wait) throws Exception {
    return Await.until(
        wait,
        () -> {
          Object companion = companion();
          return companion != null && ((List<?>) call(companion, "workspaceRoots")).contains(root)
              ? companion
              : null;
        },
        companion -> companion != null);
  }

  /** The module's companion service, as the module's class loader has it. */
  static Object service() throws Exception {
    return Lookup.getDefault()
        .lookup(ClassLoader.class)
        .loadClass("dev.companion4j.netbeans.CompanionService")
        .getMethod("getDefault")
        .invoke(null);
  }

  /** Calls {@code target}'s method {@code name} that takes {@code args.length} arguments. */
  static Object call(Object target, String name, Object... args) throws Exception {
    for (Class<?> type = target.getClass(); type != null; type = type.getSuperclass()) {
      for (Method m : type.getDeclaredMethods()) {
        if (m.getName().equals(name) && m.getParameterCount() == args.length) {
          m.setAccessible(true);
          return m.invoke(target, args);
        }
      }
    }
    throw new AssertionError(target.getClass() + " has no method " + name);
  }
}
