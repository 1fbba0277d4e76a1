package dev.companion4j.engine.internal.code;

import dev.companion4j.engine.ChangeOutcome;
import dev.companion4j.engine.DiffId;
import dev.companion4j.engine.HostActionException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The renames this companion proposed as changes, and how each ended for its asker: the user's
 * decision and, once accepted, the host's writing of every file. The one owner of that memory;
 * thread-safe. The last {@link #REMEMBERED} are kept, pending ones too.
 */
public final class Renames {
  static final int REMEMBERED = 256;

  /** A call into the host that may refuse. */
  public interface HostCall<T> {
    T call() throws HostActionException;
  }

  /** Writes an accepted change's files ({@code CompanionHost#writeChange}). */
  public interface Writer {
    void write(Map<Path, String> contents) throws HostActionException;
  }

  /**
   * How a rename ended for the asker.
   *
   * @param outcome the user's decision, or null when the change could not be shown
   * @param failure why it could not be shown, or why writing the accepted files failed; null when
   *     all went as decided
   */
  public record End(ChangeOutcome outcome, String failure) {}

  private final Map<DiffId, CompletableFuture<End>> byId =
      new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<DiffId, CompletableFuture<End>> eldest) {
          return size() > REMEMBERED;
        }
      };

  /**
   * Follows a proposed rename to its end: an accepted one is written by {@code writer} on {@code
   * writing} (the host's code thread) before the end is known.
   */
  public void proposed(
      DiffId id, CompletableFuture<ChangeOutcome> outcome, Writer writer, Executor writing) {
    CompletableFuture<End> end = new CompletableFuture<>();
    synchronized (byId) {
      byId.put(id, end);
    }
    outcome.whenComplete(
        (decided, failure) -> {
          if (failure != null) {
            Throwable why = failure.getCause() != null ? failure.getCause() : failure;
            end.complete(new End(null, why.getMessage()));
          } else if (decided instanceof ChangeOutcome.Accepted accepted) {
            writing.execute(
                () -> {
                  try {
                    writer.write(accepted.contents());
                    end.complete(new End(decided, null));
                  } catch (HostActionException | RuntimeException e) {
                    end.complete(new End(decided, e.getMessage()));
                  }
                });
          } else {
            end.complete(new End(decided, null));
          }
        });
  }

  /** The end of rename {@code id}: completes when it ends, or at once when it has. */
  public Optional<CompletableFuture<End>> end(DiffId id) {
    synchronized (byId) {
      return Optional.ofNullable(byId.get(id)).map(CompletableFuture::copy);
    }
  }
}
