package dev.companion4j.cli.editorapi;

import dev.companion4j.engine.CodeQuery;
import dev.companion4j.engine.CodeResult;
import dev.companion4j.engine.DiffId;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The questions about code asked of the editors that follow the event stream, each pending until
 * its first valid answer or until its asker gives up: the one owner of that memory, thread-safe.
 * How the last {@link #REMEMBERED} ended is kept, so that a late answer hears why it changed
 * nothing.
 */
final class CodeQueries {
  static final int REMEMBERED = 256;

  /** An editor's answer to a query. */
  sealed interface Answer {
    /** What the editor found; empty means none. */
    record Results(List<CodeResult> results) implements Answer {}

    /** A rename's edits: each changed file's whole new text, by absolute path. */
    record Files(Map<Path, String> files) implements Answer {}

    /** The editor cannot answer; {@code why} reaches the asker. */
    record Refused(String why) implements Answer {}
  }

  /** A query asked: its id, and its first answer once it comes. */
  record Asked(DiffId id, boolean rename, CompletableFuture<Answer> answer) {}

  /** What an answer to a query did. */
  enum Taken {
    /** It is the query's answer. */
    ANSWERED,
    /** No such query was ever asked here, or it ended long ago. */
    UNKNOWN,
    /** The query had ended already; this answer changed nothing. */
    ENDED
  }

  private final Map<DiffId, Asked> pending = new HashMap<>();

  private final Map<DiffId, String> ended =
      new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<DiffId, String> eldest) {
          return size() > REMEMBERED;
        }
      };

  /** Opens a query under a fresh id. */
  synchronized Asked open(CodeQuery query) {
    DiffId id;
    do {
      id = DiffId.random();
    } while (pending.containsKey(id) || ended.containsKey(id));
    Asked asked = new Asked(id, query instanceof CodeQuery.Rename, new CompletableFuture<>());
    pending.put(id, asked);
    return asked;
  }

  /** The pending query {@code id}, to read its answer against. */
  synchronized Optional<Asked> pending(DiffId id) {
    return Optional.ofNullable(pending.get(id));
  }

  /** Why query {@code id} ended, when it did lately. */
  synchronized Optional<String> howEnded(DiffId id) {
    return Optional.ofNullable(ended.get(id));
  }

  /** Gives query {@code id} its answer, when it is still pending. */
  synchronized Taken answer(DiffId id, Answer answer) {
    Asked asked = pending.remove(id);
    if (asked == null) {
      return ended.containsKey(id) ? Taken.ENDED : Taken.UNKNOWN;
    }
    ended.put(id, "it was answered already");
    asked.answer().complete(answer);
    return Taken.ANSWERED;
  }

  /** Withdraws query {@code id}, answered or not: its asker no longer waits. */
  synchronized void withdraw(DiffId id, String why) {
    if (pending.remove(id) != null) {
      ended.put(id, why);
    }
  }

  /**
   * The {@code codeQuery} event for {@code query}: {@code {id, kind, path?, line?, column?,
   * direction?, query?, newName?}}, positions 1-based, the column in code points.
   */
  static Map<String, Object> event(DiffId id, CodeQuery query) {
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("id", id.value());
    event.put("kind", query.feature().wireName());
    if (query instanceof CodeQuery.Definition q) {
      position(event, q.at());
    } else if (query instanceof CodeQuery.References q) {
      position(event, q.at());
    } else if (query instanceof CodeQuery.DocumentSymbols q) {
      event.put("path", q.path().toString());
    } else if (query instanceof CodeQuery.WorkspaceSymbols q) {
      event.put("query", q.query());
    } else if (query instanceof CodeQuery.CallHierarchy q) {
      position(event, q.at());
      event.put("direction", q.incoming() ? "incoming" : "outgoing");
    } else if (query instanceof CodeQuery.TypeHierarchy q) {
      position(event, q.at());
      event.put("direction", q.supertypes() ? "supertypes" : "subtypes");
    } else if (query instanceof CodeQuery.Rename q) {
      position(event, q.at());
      event.put("newName", q.newName());
    }
    return event;
  }

  private static void position(Map<String, Object> event, CodeQuery.Position at) {
    event.put("path", at.path().toString());
    event.put("line", at.line());
    event.put("column", at.character());
  }
}
