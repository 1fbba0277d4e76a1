package dev.companion4j.engine.internal.diff;

import dev.companion4j.engine.internal.diff.DiffBook.DiffRequestException;
import dev.companion4j.engine.internal.io.BoundedReads;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.List;

/**
 * Reads the current text of a file a CLI proposes to change, trusting nothing about it: only a
 * regular file, whose real location lies inside a workspace root, of at most {@link
 * #MAX_FILE_BYTES}, read on a small pool of its own ({@link BoundedReads}) within {@link
 * #READ_DEADLINE}. A FIFO swapped in after the checks, or a stalled network mount, costs one pool
 * thread, never the request's.
 */
final class ReviewedFiles {
  /** The largest file the companion puts under review; larger ones are refused with a reason. */
  static final int MAX_FILE_BYTES = 8 * 1024 * 1024;

  /** How long reading one file may take. */
  static final Duration READ_DEADLINE = Duration.ofSeconds(5);

  private final BoundedReads readers = new BoundedReads("companion4j-file-read", 4);

  /**
   * The file's text, or "" when it does not exist yet.
   *
   * @param realRoots the workspace roots with symlinks resolved
   * @throws DiffRequestException with a message for the CLI when the file cannot be reviewed
   */
  String readOriginal(Path path, String filePath, List<Path> realRoots) throws DiffRequestException {
    BasicFileAttributes link;
    try {
      link = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      requireInside(nearestExisting(path.getParent()), filePath, realRoots);
      return "";
    } catch (IOException e) {
      throw new DiffRequestException("The file cannot be read: " + filePath + " (" + e.getMessage() + ")");
    }
    Path real = path;
    BasicFileAttributes attrs = link;
    if (link.isSymbolicLink()) {
      try {
        real = path.toRealPath();
        attrs = Files.readAttributes(real, BasicFileAttributes.class);
      } catch (IOException e) {
        throw new DiffRequestException("filePath is a symbolic link that leads nowhere readable: " + filePath);
      }
    }
    requireInside(real, filePath, realRoots);
    if (attrs.isDirectory()) {
      throw new DiffRequestException("filePath names a directory, not a file: " + filePath);
    }
    if (!attrs.isRegularFile()) {
      throw new DiffRequestException(
          "filePath is not a regular file (a pipe, socket or device) and cannot be diffed: " + filePath);
    }
    if (attrs.size() > MAX_FILE_BYTES) {
      throw tooLarge(filePath);
    }
    return decode(readWithDeadline(real, filePath), filePath);
  }

  private byte[] readWithDeadline(Path real, String filePath) throws DiffRequestException {
    try {
      return readers.read(real, MAX_FILE_BYTES, READ_DEADLINE);
    } catch (BoundedReads.TooLarge e) {
      throw tooLarge(filePath);
    } catch (IOException e) {
      throw new DiffRequestException("The file cannot be read: " + filePath + " (" + e.getMessage() + ")");
    }
  }

  private static String decode(byte[] bytes, String filePath) throws DiffRequestException {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new DiffRequestException("The file is not UTF-8 text and cannot be diffed: " + filePath);
    }
  }

  private static DiffRequestException tooLarge(String filePath) {
    return new DiffRequestException(
        "The file is larger than " + MAX_FILE_BYTES / (1024 * 1024) + " MiB, the most the editor reviews: " + filePath);
  }

  /** A symlink inside the workspace must not show a file outside it. */
  private static void requireInside(Path real, String filePath, List<Path> realRoots) throws DiffRequestException {
    if (real != null && realRoots.stream().noneMatch(real::startsWith)) {
      throw new DiffRequestException("filePath resolves to a place outside every workspace root: " + filePath);
    }
  }

  private static Path nearestExisting(Path dir) {
    for (Path d = dir; d != null; d = d.getParent()) {
      try {
        return d.toRealPath();
      } catch (IOException e) {
        // Not there (yet): a new file may create its folders; check the nearest one that exists.
      }
    }
    return null;
  }
}
