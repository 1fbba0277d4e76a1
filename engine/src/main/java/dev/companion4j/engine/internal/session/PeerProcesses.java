package dev.companion4j.engine.internal.session;

import dev.companion4j.engine.ClientProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Finds the process at the other end of a loopback connection from Linux's {@code /proc}: the
 * socket in {@code net/tcp} and {@code net/tcp6}, the process holding it, its program (from the
 * {@code package.json} next to the script it runs) and its terminal. Only this user's processes can
 * be read, so another user's CLI stays unknown; elsewhere than Linux everything does.
 */
public final class PeerProcesses {
  private static final Map<String, String> PROGRAMS =
      Map.of(
          "@qwen-code/qwen-code", "Qwen Code",
          "@google/gemini-cli", "Gemini CLI");

  /** How far up from a script its package.json may be ({@code bundle/gemini.js} is one level). */
  private static final int PACKAGE_DEPTH = 3;

  /** How many parents are asked for a terminal when the process itself has none on fd 0-2. */
  private static final int TERMINAL_DEPTH = 4;

  private static final Pattern WHITESPACE = Pattern.compile("\\s+");

  private final Path proc;

  public PeerProcesses(Path proc) {
    this.proc = proc;
  }

  /** The system's {@code /proc}. */
  public static PeerProcesses system() {
    return new PeerProcesses(Path.of("/proc"));
  }

  /**
   * The process whose socket connects from {@code clientPort} to {@code serverPort} on this
   * machine, or {@link ClientProcess#UNKNOWN}.
   */
  public ClientProcess identify(int serverPort, int clientPort) {
    return identifyAll(serverPort, Set.of(clientPort))
        .getOrDefault(clientPort, ClientProcess.UNKNOWN);
  }

  /**
   * The processes behind several connections to {@code serverPort}, by client port, in one pass:
   * reading {@code net/tcp} walks the kernel's whole connection table, which costs milliseconds
   * however few connections there are. A connection that cannot be traced is left out.
   */
  public Map<Integer, ClientProcess> identifyAll(int serverPort, Set<Integer> clientPorts) {
    Map<Integer, ClientProcess> found = new HashMap<>();
    try {
      Map<Long, Integer> portsByInode = socketInodes(serverPort, clientPorts);
      Map<Long, ClientProcess> described = new HashMap<>();
      holders(portsByInode.keySet())
          .forEach(
              (inode, pid) ->
                  found.put(
                      portsByInode.get(inode), described.computeIfAbsent(pid, this::describe)));
    } catch (IOException | RuntimeException e) {
      // Whatever was not found stays unknown.
    }
    return found;
  }

  /**
   * The process {@code pid} as {@link #identify} describes a connected one: its program and its
   * terminal; {@link ClientProcess#UNKNOWN} when it cannot be read.
   */
  public ClientProcess describe(long pid) {
    try {
      Path dir = proc.resolve(Long.toString(pid));
      Program program = program(dir);
      return new ClientProcess(pid, program.name(), program.version(), terminal(dir));
    } catch (IOException | RuntimeException e) {
      return ClientProcess.UNKNOWN;
    }
  }

  /** The inodes of the sockets connecting from these client ports, each to its port. */
  private Map<Long, Integer> socketInodes(int serverPort, Set<Integer> clientPorts)
      throws IOException {
    Map<Long, Integer> inodes = new HashMap<>();
    for (String table : List.of("net/tcp", "net/tcp6")) {
      Path file = proc.resolve(table);
      if (inodes.size() == clientPorts.size() || !Files.isReadable(file)) {
        continue;
      }
      for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
        String[] f = WHITESPACE.split(line.trim());
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
        if (f.length > 9 && port(f[2]) == serverPort && clientPorts.contains(port(f[1]))) {
          inodes.put(Long.parseLong(f[9]), port(f[1]));
        }
      }
    }
    inodes.remove(0L);
    return inodes;
  }

  private static int port(String address) {
    int colon = address.lastIndexOf(':');
    return colon < 0 ? -1 : Integer.parseInt(address.substring(colon + 1), 16);
  }

  /** The processes holding these sockets, by socket inode; one pass over the open files. */
  private Map<Long, Long> holders(Set<Long> inodes) throws IOException {
    Map<Long, Long> holders = new HashMap<>();
    if (inodes.isEmpty()) {
      return holders;
    }
    try (DirectoryStream<Path> processes =
        Files.newDirectoryStream(proc, p -> isNumber(p.getFileName().toString()))) {
      for (Path process : processes) {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(process.resolve("fd"))) {
          for (Path fd : fds) {
            String target = link(fd);
            if (target.startsWith("socket:[")) {
              long inode = Long.parseLong(target, "socket:[".length(), target.length() - 1, 10);
              if (inodes.contains(inode)) {
                holders.putIfAbsent(inode, Long.parseLong(process.getFileName().toString()));
              }
            }
          }
        } catch (IOException e) {
          // Another user's process, or one that just ended.
        }
        if (holders.size() == inodes.size()) {
          break;
        }
      }
    }
    return holders;
  }

  private static boolean isNumber(String s) {
    return !s.isEmpty() && s.chars().allMatch(Character::isDigit);
  }

  private static String link(Path p) {
    try {
      return Files.readSymbolicLink(p).toString();
    } catch (IOException | UnsupportedOperationException e) {
      return "";
    }
  }

  /**
   * The program's name and version, from the package of a script it runs; empty when it runs none
   * (a bare executable such as {@code java} says less than the client's own handshake name).
   */
  private Program program(Path dir) throws IOException {
    List<String> args = cmdline(dir);
    String workingDir = link(dir.resolve("cwd"));
    Path cwd = Path.of(workingDir.isEmpty() ? "/" : workingDir);
    for (String arg : args.subList(Math.min(1, args.size()), args.size())) {
      if (arg.startsWith("-") || arg.isEmpty()) {
        continue;
      }
      Optional<Program> pkg = packageOf(cwd.resolve(arg));
      if (pkg.isPresent()) {
        return pkg.get();
      }
    }
    return new Program("", "");
  }

  private static List<String> cmdline(Path dir) throws IOException {
    String raw = new String(Files.readAllBytes(dir.resolve("cmdline")), StandardCharsets.UTF_8);
    List<String> args = new ArrayList<>(List.of(raw.split("\0")));
    args.removeIf(String::isEmpty);
    return args;
  }

  private record Program(String name, String version) {}

  /** A command npm installs is a link to the script in its package, so links are followed. */
  private static Optional<Program> packageOf(Path script) {
    if (!Files.isRegularFile(script)) {
      return Optional.empty();
    }
    Path dir;
    try {
      dir = script.toRealPath().getParent();
    } catch (IOException e) {
      return Optional.empty();
    }
    for (int i = 0; i < PACKAGE_DEPTH && dir != null; i++, dir = dir.getParent()) {
      Path manifest = dir.resolve("package.json");
      if (Files.isRegularFile(manifest)) {
        try {
          JsonNode pkg = JsonMapper.shared().readTree(manifest.toFile());
          String name = pkg.path("name").asString("");
          if (!name.isEmpty()) {
            return Optional.of(
                new Program(PROGRAMS.getOrDefault(name, name), pkg.path("version").asString("")));
          }
        } catch (JacksonException e) {
          return Optional.empty();
        }
      }
    }
    return Optional.empty();
  }

  /** The terminal on fd 0, 1 or 2 of the process or its nearest parent that has one. */
  private String terminal(Path dir) throws IOException {
    Path current = dir;
    for (int i = 0; i < TERMINAL_DEPTH && current != null; i++) {
      for (String fd : List.of("0", "1", "2")) {
        String target = link(current.resolve("fd").resolve(fd));
        if (target.startsWith("/dev/pts/") || target.startsWith("/dev/tty")) {
          return target.substring("/dev/".length());
        }
      }
      current = parent(current);
    }
    return "";
  }

  private Path parent(Path dir) throws IOException {
    String stat = Files.readString(dir.resolve("stat"), StandardCharsets.UTF_8);
    // pid (comm) state ppid ...; comm may hold spaces and parentheses.
    String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long ppid = Long.parseLong(after[1]);
    return ppid <= 1 ? null : proc.resolve(Long.toString(ppid));
  }
}
