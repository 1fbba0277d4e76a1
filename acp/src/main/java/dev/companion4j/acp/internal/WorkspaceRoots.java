package dev.companion4j.acp.internal;

import com.agentclientprotocol.sdk.error.AcpProtocolException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The folders the agent's file calls may touch, as real paths, so a link inside a root that points
 * out of it does not count as inside. Every refusal is an ACP error the agent reads.
 */
public final class WorkspaceRoots {
  /** JSON-RPC's invalid params. */
  private static final int INVALID_PARAMS = -32602;

  private final List<Path> roots;

  /**
   * @throws UncheckedIOException when a root does not exist
   */
  public WorkspaceRoots(List<Path> roots) {
    if (roots.isEmpty()) {
      throw new IllegalArgumentException("at least one workspace root is needed");
    }
    List<Path> real = new ArrayList<>();
    for (Path root : roots) {
      try {
        real.add(root.toRealPath());
      } catch (IOException e) {
        throw new UncheckedIOException("The workspace root " + root + " is not there", e);
      }
    }
    this.roots = List.copyOf(real);
  }

  /**
   * The path the agent named, resolved through links, when it lies inside a root.
   *
   * @throws AcpProtocolException when it is not absolute or lies outside every root
   */
  public Path confine(String path) {
    Path asked;
    try {
      asked = path == null ? null : Path.of(path);
    } catch (InvalidPathException e) {
      asked = null;
    }
    if (asked == null || !asked.isAbsolute()) {
      throw new AcpProtocolException(INVALID_PARAMS, "Not an absolute path: " + path);
    }
    Path real = real(asked.normalize());
    for (Path root : roots) {
      if (real.startsWith(root)) {
        return real;
      }
    }
    throw new AcpProtocolException(INVALID_PARAMS, "Outside the workspace roots: " + path);
  }

  /**
   * The real path of the deepest part that exists, with the rest appended: a file still to be
   * written is judged by the real folder it would land in, and a dangling link (which exists as a
   * link but has no real path) is refused rather than followed.
   */
  private static Path real(Path path) {
    Path existing = path;
    while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return path;
    }
    try {
      return existing.toRealPath().resolve(existing.relativize(path));
    } catch (IOException e) {
      throw new AcpProtocolException(INVALID_PARAMS, "Cannot resolve " + path + ": " + e);
    }
  }
}
