package dev.companion4j.testkit;

import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleReader;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A module's public API as text, compared with a checked-in baseline, so that every change to it is
 * a reviewed diff: the public and protected types of the packages the module exports, with their
 * supertypes, sealed permits, record components, constructors, methods and fields, one sorted line
 * each.
 *
 * <p>No released artifact exists to compare against, so tools that compare two published jars
 * (japicmp, revapi) cannot be used; the baseline file takes that artifact's place.
 */
public final class ApiBaseline {
  /** The system property that rewrites the baseline instead of comparing with it. */
  public static final String UPDATE = "api.baseline.update";

  private ApiBaseline() {}

  /**
   * Compares the API of {@code module} (a named module: tests run inside it) with {@code baseline}
   * under the repository root, or rewrites the file when {@link #UPDATE} is {@code true}.
   *
   * @throws AssertionError with a unified diff and the command that updates the baseline
   */
  public static void check(Module module, String baseline, String mavenModule) {
    Path file = TestPeers.repoRoot().resolve(baseline);
    List<String> actual = describe(module);
    try {
      if (Boolean.getBoolean(UPDATE)) {
        Files.createDirectories(file.getParent());
        Files.write(file, actual, StandardCharsets.UTF_8);
        return;
      }
      List<String> expected =
          Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
      if (!expected.equals(actual)) {
        List<String> diff =
            UnifiedDiffUtils.generateUnifiedDiff(
                baseline,
                baseline + " (the code now)",
                expected,
                DiffUtils.diff(expected, actual),
                2);
        throw new AssertionError(
            "The public API of "
                + module.getName()
                + " differs from "
                + baseline
                + ". If the change is meant, update the baseline and commit it with the change:\n"
                + "  mvn -pl "
                + mavenModule
                + " -am verify -Dtest=ApiBaselineTest -Dsurefire.failIfNoSpecifiedTests=false -D"
                + UPDATE
                + "=true\n\n"
                + String.join("\n", diff));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The API of {@code module}'s unqualified exports, in a stable order. */
  static List<String> describe(Module module) {
    ModuleDescriptor descriptor = module.getDescriptor();
    if (descriptor == null) {
      throw new IllegalStateException(
          "the API is read from a named module; these tests run on the class path");
    }
    Set<String> exported =
        descriptor.exports().stream()
            .filter(e -> !e.isQualified())
            .map(ModuleDescriptor.Exports::source)
            .collect(Collectors.toSet());
    List<String> lines = new ArrayList<>();
    for (Class<?> type : classes(module, exported)) {
      if (visible(type)) {
        lines.add(header(type));
        members(type).stream().sorted().map(m -> "  " + m).forEach(lines::add);
      }
    }
    return lines;
  }

  private static List<Class<?>> classes(Module module, Set<String> packages) {
    try (ModuleReader reader =
            module
                .getLayer()
                .configuration()
                .findModule(module.getName())
                .orElseThrow()
                .reference()
                .open();
        Stream<String> resources = reader.list()) {
      return resources
          .filter(r -> r.endsWith(".class") && !r.equals("module-info.class"))
          .map(r -> r.substring(0, r.length() - ".class".length()).replace('/', '.'))
          .filter(name -> packages.contains(name.substring(0, name.lastIndexOf('.'))))
          .sorted()
          .<Class<?>>map(name -> load(module, name))
          .collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Class<?> load(Module module, String name) {
    try {
      return Class.forName(name, false, module.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(
          name + " is listed in " + module.getName() + " but does not load", e);
    }
  }

  /** Public or protected, and so is every class around it. */
  private static boolean visible(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getDeclaringClass()) {
      if (c.isAnonymousClass()
          || c.isLocalClass()
          || c.isSynthetic()
          || !exposed(c.getModifiers())) {
        return false;
      }
    }
    return true;
  }

  private static boolean exposed(int modifiers) {
    return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
  }

  /** As {@link Class#toGenericString()} prints it on JDK 17, which later JDKs extend. */
  private static String header(Class<?> type) {
    int modifiers =
        type.getModifiers()
            & (type.isInterface() ? Modifier.interfaceModifiers() : Modifier.classModifiers());
    String kind =
        type.isAnnotation()
            ? "@interface"
            : type.isInterface()
                ? "interface"
                : type.isEnum() ? "enum" : type.isRecord() ? "record" : "class";
    StringBuilder line =
        new StringBuilder(Modifier.toString(modifiers))
            .append(' ')
            .append(kind)
            .append(' ')
            .append(type.getName());
    TypeVariable<?>[] parameters = type.getTypeParameters();
    if (parameters.length > 0) {
      line.append(
          Arrays.stream(parameters)
              .map(ApiBaseline::typeParameter)
              .collect(Collectors.joining(",", "<", ">")));
    }
    Type superclass = type.getGenericSuperclass();
    if (superclass != null && superclass != Object.class && !type.isEnum() && !type.isRecord()) {
      line.append(" extends ").append(superclass.getTypeName());
    }
    Type[] interfaces = type.getGenericInterfaces();
    if (interfaces.length > 0) {
      line.append(type.isInterface() ? " extends " : " implements ")
          .append(
              Arrays.stream(interfaces).map(Type::getTypeName).collect(Collectors.joining(", ")));
    }
    if (type.isSealed()) {
      line.append(" permits ")
          .append(
              Arrays.stream(type.getPermittedSubclasses())
                  .map(Class::getName)
                  .sorted()
                  .collect(Collectors.joining(", ")));
    }
    return line.toString();
  }

  private static String typeParameter(TypeVariable<?> parameter) {
    List<String> bounds =
        Arrays.stream(parameter.getBounds())
            .filter(b -> b != Object.class)
            .map(Type::getTypeName)
            .collect(Collectors.toList());
    return bounds.isEmpty()
        ? parameter.getName()
        : parameter.getName() + " extends " + String.join(" & ", bounds);
  }

  private static List<String> members(Class<?> type) {
    List<String> members = new ArrayList<>();
    if (type.isRecord()) {
      for (RecordComponent component : type.getRecordComponents()) {
        members.add(
            "component " + component.getGenericType().getTypeName() + " " + component.getName());
      }
    }
    for (Constructor<?> c : type.getDeclaredConstructors()) {
      add(members, c, c.toGenericString());
    }
    for (Method m : type.getDeclaredMethods()) {
      if (!m.isBridge()) {
        add(members, m, m.toGenericString());
      }
    }
    for (Field f : type.getDeclaredFields()) {
      add(members, f, f.toGenericString());
    }
    return members;
  }

  private static void add(List<String> members, Member member, String signature) {
    if (!member.isSynthetic() && exposed(member.getModifiers())) {
      members.add(signature);
    }
  }
}
