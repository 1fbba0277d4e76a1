package dev.companion4j.engine.internal.context;

import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.IdeContext;
import dev.companion4j.engine.IdeContext.Cursor;
import dev.companion4j.engine.IdeContext.OpenFile;
import dev.companion4j.engine.OpenEditor;
import dev.companion4j.engine.TextRange;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * The editor's state as the CLIs should see it, kept from editor events. Not thread-safe: the
 * engine feeds it from one thread.
 */
public final class ContextTracker {
  /** Files beyond what the CLIs keep are still remembered, so closing one brings back the next. */
  private static final int REMEMBERED_FILES = 50;

  /** No editor has more unsaved files than this; an editor that claims so loses the oldest. */
  private static final int MAX_DIRTY = 1000;

  /**
   * The unsaved text kept of all files together, in characters; past it the texts told longest ago
   * are forgotten, and those files read from disk again.
   */
  static final long MAX_UNSAVED_TOTAL_CHARS = 8L * EditorEvent.DirtyChanged.MAX_UNSAVED_CHARS;

  private final LongSupplier clock;
  private final Predicate<Path> onDisk;
  private final Map<Path, FileState> files = new HashMap<>();

  /**
   * Files with unsaved changes; kept apart from {@link #files}, since an unfocused file may be
   * dirty.
   */
  private final Set<Path> dirty = new LinkedHashSet<>();

  /**
   * The newest unsaved text of dirty files whose editor tells it, oldest first. Written on the
   * engine thread, read from any (the companion's chat agent reads files on its own): guarded by
   * itself.
   */
  private final Map<Path, String> unsaved = new LinkedHashMap<>();

  /** The characters in {@link #unsaved}; engine thread only. */
  private long unsavedChars;

  private Path active;

  /** Read from any thread: whether the editor has said which files are unsaved. */
  private volatile boolean dirtyStateReported;

  private long lastTimestamp;
  private boolean trusted;

  public ContextTracker(boolean trusted) {
    this(System::currentTimeMillis, Files::isRegularFile, trusted);
  }

  ContextTracker(LongSupplier clock, Predicate<Path> onDisk, boolean trusted) {
    this.clock = clock;
    this.onDisk = onDisk;
    this.trusted = trusted;
  }

  /**
   * Applies an event.
   *
   * @return whether the context changed
   */
  public boolean apply(EditorEvent event) {
    IdeContext before = snapshot();
    // Java 17 has no pattern switch; the chain covers every permitted subtype.
    if (event instanceof EditorEvent.FileFocused e) {
      focus(e.path());
    } else if (event instanceof EditorEvent.FileClosed e) {
      remove(e.path());
    } else if (event instanceof EditorEvent.FileDeleted e) {
      remove(e.path());
    } else if (event instanceof EditorEvent.FileRenamed e) {
      rename(e.from(), e.to());
    } else if (event instanceof EditorEvent.CursorMoved e) {
      FileState state = focus(e.path());
      if (state != null) {
        state.cursor = new Cursor(e.line(), e.character());
      }
    } else if (event instanceof EditorEvent.SelectionChanged e) {
      FileState state = focus(e.path());
      if (state != null) {
        state.selection = e.text().isEmpty() ? null : e.text();
        state.selectionRange = e.text().isEmpty() ? null : e.range();
      }
    } else if (event instanceof EditorEvent.DirtyChanged e) {
      dirtyStateReported = true;
      Path path = e.path().toAbsolutePath().normalize();
      if (e.dirty()) {
        dirty.add(path);
        if (dirty.size() > MAX_DIRTY) {
          Path oldest = dirty.iterator().next();
          dirty.remove(oldest);
          forgetUnsaved(p -> p.equals(oldest));
        }
      } else {
        dirty.remove(path);
      }
      keepUnsaved(path, e.text());
    } else if (event instanceof EditorEvent.TrustChanged e) {
      trusted = e.trusted();
    }
    return !snapshot().equals(before);
  }

  /** The context to send: newest first, capped, cursor and selection on the active file only. */
  public IdeContext snapshot() {
    List<Map.Entry<Path, FileState>> newest = new ArrayList<>(files.entrySet());
    newest.sort(
        Comparator.comparingLong((Map.Entry<Path, FileState> e) -> e.getValue().timestamp)
            .reversed());
    List<OpenFile> open = new ArrayList<>();
    for (Map.Entry<Path, FileState> e : newest) {
      if (open.size() == IdeContext.MAX_OPEN_FILES) {
        break;
      }
      FileState s = e.getValue();
      boolean isActive = e.getKey().equals(active);
      open.add(
          new OpenFile(
              e.getKey().toString(),
              s.timestamp,
              isActive,
              isActive ? s.cursor : null,
              isActive ? s.selection : null));
    }
    return new IdeContext(open, trusted);
  }

  /**
   * The file's unsaved text as its editor last told it, while the file is dirty; safe from any
   * thread. An editor names a file as it opened it, and a reader may name it through its links
   * resolved, so the real paths are compared when the names differ.
   */
  public Optional<String> unsavedText(Path file) {
    Path path = file.toAbsolutePath().normalize();
    Map<Path, String> kept;
    synchronized (unsaved) {
      String named = unsaved.get(path);
      if (named != null || unsaved.isEmpty()) {
        return Optional.ofNullable(named);
      }
      kept = Map.copyOf(unsaved);
    }
    // Outside the lock: resolving links reads the disk.
    Optional<Path> real = realPath(path);
    if (real.isEmpty()) {
      return Optional.empty();
    }
    return kept.entrySet().stream()
        .filter(e -> realPath(e.getKey()).equals(real))
        .map(Map.Entry::getValue)
        .findFirst();
  }

  private static Optional<Path> realPath(Path path) {
    try {
      return Optional.of(path.toRealPath());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Whether a {@link EditorEvent.DirtyChanged} came since start; safe from any thread. */
  public boolean dirtyStateReported() {
    return dirtyStateReported;
  }

  /**
   * Every file the editor has open that this tracker knows of, newest first: those focused (beyond
   * what the CLIs get), then those only known to be dirty.
   */
  public List<OpenEditor> editors() {
    List<OpenEditor> editors = new ArrayList<>();
    files.entrySet().stream()
        .sorted(
            Comparator.comparingLong((Map.Entry<Path, FileState> e) -> e.getValue().timestamp)
                .reversed())
        .forEach(
            e -> {
              FileState s = e.getValue();
              boolean isActive = e.getKey().equals(active);
              editors.add(
                  new OpenEditor(
                      e.getKey().toString(),
                      isActive,
                      isActive ? s.cursor : null,
                      isActive ? s.selection : null,
                      isActive ? s.selectionRange : null,
                      dirty.contains(e.getKey())));
            });
    dirty.stream()
        .filter(p -> !files.containsKey(p))
        .forEach(p -> editors.add(new OpenEditor(p.toString(), false, null, null, null, true)));
    return editors;
  }

  private FileState focus(Path raw) {
    Path path = raw.toAbsolutePath().normalize();
    if (!onDisk.test(path)) {
      // Virtual and unsaved buffers must not reach the CLIs.
      return null;
    }
    FileState state = files.computeIfAbsent(path, p -> new FileState());
    if (!path.equals(active) || state.timestamp == 0) {
      state.timestamp = nextTimestamp();
      if (active != null && !active.equals(path)) {
        FileState previous = files.get(active);
        if (previous != null) {
          previous.cursor = null;
          previous.selection = null;
          previous.selectionRange = null;
        }
      }
      active = path;
    }
    evictBeyondMemory();
    return state;
  }

  private void remove(Path raw) {
    Path path = raw.toAbsolutePath().normalize();
    files.remove(path);
    // A deleted directory takes its files with it.
    files.keySet().removeIf(p -> p.startsWith(path));
    dirty.removeIf(p -> p.startsWith(path));
    forgetUnsaved(p -> p.startsWith(path));
    if (active != null && active.startsWith(path)) {
      active = null;
    }
  }

  private void rename(Path rawFrom, Path rawTo) {
    Path from = rawFrom.toAbsolutePath().normalize();
    Path to = rawTo.toAbsolutePath().normalize();
    Map<Path, FileState> moved = new HashMap<>();
    files
        .entrySet()
        .removeIf(
            e -> {
              if (e.getKey().startsWith(from)) {
                moved.put(to.resolve(from.relativize(e.getKey())), e.getValue());
                return true;
              }
              return false;
            });
    files.putAll(moved);
    List<Path> movedDirty = dirty.stream().filter(p -> p.startsWith(from)).toList();
    dirty.removeAll(movedDirty);
    movedDirty.forEach(p -> dirty.add(to.resolve(from.relativize(p))));
    Map<Path, String> movedUnsaved = new LinkedHashMap<>();
    synchronized (unsaved) {
      unsaved.forEach(
          (p, text) -> {
            if (p.startsWith(from)) {
              movedUnsaved.put(to.resolve(from.relativize(p)), text);
            }
          });
    }
    forgetUnsaved(p -> p.startsWith(from));
    movedUnsaved.forEach(this::keepUnsaved);
    if (active != null && active.startsWith(from)) {
      active = to.resolve(from.relativize(active));
    }
  }

  /**
   * Keeps the newest text of a dirty file, replacing the one before; null (not dirty, or not told)
   * forgets it, since an older text would be a wrong file.
   */
  private void keepUnsaved(Path path, String text) {
    forgetUnsaved(p -> p.equals(path));
    if (text == null) {
      return;
    }
    synchronized (unsaved) {
      unsaved.put(path, text);
      unsavedChars += text.length();
      // One text fits (an event's is bounded below the total), so the newest always stays.
      Iterator<Map.Entry<Path, String>> oldestFirst = unsaved.entrySet().iterator();
      while (unsavedChars > MAX_UNSAVED_TOTAL_CHARS) {
        unsavedChars -= oldestFirst.next().getValue().length();
        oldestFirst.remove();
      }
    }
  }

  private void forgetUnsaved(Predicate<Path> which) {
    synchronized (unsaved) {
      Iterator<Map.Entry<Path, String>> all = unsaved.entrySet().iterator();
      while (all.hasNext()) {
        Map.Entry<Path, String> e = all.next();
        if (which.test(e.getKey())) {
          unsavedChars -= e.getValue().length();
          all.remove();
        }
      }
    }
  }

  private long nextTimestamp() {
    // Strictly increasing, so two focus changes in one millisecond still order correctly.
    lastTimestamp = Math.max(clock.getAsLong(), lastTimestamp + 1);
    return lastTimestamp;
  }

  private void evictBeyondMemory() {
    while (files.size() > REMEMBERED_FILES) {
      files.entrySet().stream()
          .min(Comparator.comparingLong(e -> e.getValue().timestamp))
          .map(Map.Entry::getKey)
          .ifPresent(files::remove);
    }
  }

  private static final class FileState {
    long timestamp;
    Cursor cursor;
    String selection;
    TextRange selectionRange;
  }
}
