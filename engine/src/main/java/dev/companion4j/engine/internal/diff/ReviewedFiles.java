package dev.companion4j.engine.internal.diff;

import dev.companion4j.engine.internal.diff.DiffBook.DiffRequestException;
import dev.companion4j.engine.internal.io.BoundedReads;
import dev.companion4j.wire.StrictUtf8;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;

/**
 * Reads the current text of a file a CLI proposes to change, trusting nothing about it: only a
 * regular file (its path already resolved and checked by {@code WorkspacePaths}), of at most {@link
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
   * The file's text.
   *
   * @param real where the path leads, every link resolved and checked against the roots
   * @param filePath the path as the CLI sent it, for messages
   * @throws DiffRequestException with a message for the CLI when the file cannot be reviewed
   */
  String readOriginal(Path real, String filePath) throws DiffRequestException {
    BasicFileAttributes attrs;
    try {
      // Not following links: a link swapped in since the path was resolved is not read through.
      attrs = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      throw cannotRead(filePath, e);
    }
    if (attrs.isDirectory()) {
      throw new DiffRequestException("filePath names a directory, not a file: " + filePath);
    }
    if (!attrs.isRegularFile()) {
      throw new DiffRequestException(
          "filePath is not a regular file (a pipe, socket, device or a link swapped in) and cannot be diffed: "
              + filePath);
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
      throw cannotRead(filePath, e);
    }
  }

  private static String decode(byte[] bytes, String filePath) throws DiffRequestException {
    try {
      return StrictUtf8.decode(bytes);
    } catch (CharacterCodingException e) {
      throw new DiffRequestException(
          "The file is not UTF-8 text and cannot be diffed: " + filePath);
    }
  }

  private static DiffRequestException tooLarge(String filePath) {
    return new DiffRequestException(
        "The file is larger than "
            + MAX_FILE_BYTES / (1024 * 1024)
            + " MiB, the most the editor reviews: "
            + filePath);
  }

  /** In words of our own: the JDK's message names the path and an errno, not what to do. */
  private static DiffRequestException cannotRead(String filePath, IOException e) {
    String why;
    if (e instanceof AccessDeniedException) {
      why = "it may not be read";
    } else if (e instanceof FileSystemException) {
      why = "the system refused to read it";
    } else if (e instanceof InterruptedIOException) {
      why = "the companion is stopping";
    } else {
      why = "it was not read within " + READ_DEADLINE.toSeconds() + " s";
    }
    return new DiffRequestException("The file cannot be read (" + why + "): " + filePath);
  }
}
