package dev.companion4j.engine.internal.context;

import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.IdeContext;
import dev.companion4j.engine.IdeContext.Cursor;
import dev.companion4j.engine.IdeContext.OpenFile;
import dev.companion4j.engine.OpenEditor;
import dev.companion4j.engine.TextRange;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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

  private final LongSupplier clock;
  private final Predicate<Path> onDisk;
  private final Map<Path, FileState> files = new HashMap<>();

  /**
   * Files with unsaved changes; kept apart from {@link #files}, since an unfocused file may be
   * dirty.
   */
  private final Set<Path> dirty = new LinkedHashSet<>();

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
          dirty.remove(dirty.iterator().next());
        }
      } else {
        dirty.remove(path);
      }
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
    if (active != null && active.startsWith(from)) {
      active = to.resolve(from.relativize(active));
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
