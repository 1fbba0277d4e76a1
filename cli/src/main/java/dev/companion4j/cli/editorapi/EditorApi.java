package dev.companion4j.cli.editorapi;

import dev.companion4j.engine.AnswerResult;
import dev.companion4j.engine.ChangeAnswer;
import dev.companion4j.engine.ChangeOutcome;
import dev.companion4j.engine.CodeQuery;
import dev.companion4j.engine.CodeResult;
import dev.companion4j.engine.Companion;
import dev.companion4j.engine.CompanionHost;
import dev.companion4j.engine.CompanionListener;
import dev.companion4j.engine.CompanionStatus;
import dev.companion4j.engine.ConnectedClient;
import dev.companion4j.engine.ContextUpdate;
import dev.companion4j.engine.DiffId;
import dev.companion4j.engine.DiffOutcome;
import dev.companion4j.engine.FileDiagnostics;
import dev.companion4j.engine.HostActionException;
import dev.companion4j.engine.IdeContext;
import dev.companion4j.engine.PendingChange;
import dev.companion4j.engine.PendingDiff;
import dev.companion4j.engine.http.EventStreams;
import dev.companion4j.engine.http.HttpBodies;
import dev.companion4j.wire.BadRequest;
import dev.companion4j.wire.JsonFields;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The editor API at {@code /editor}: any editor (a Vim autocmd with curl, an Emacs hook, the review
 * page) feeds events, lists diffs and answers them by id, follows an event stream and answers the
 * questions about code asked on it. It sits behind the companion's token and Host checks; see
 * docs/editor-api.md.
 */
public final class EditorApi extends HttpServlet implements CompanionListener {
  private static final long serialVersionUID = 1L;

  /** The mount point under which {@link #pathSpec()} serves. */
  public static final String PATH = "/editor";

  private static final int MAX_BODY_BYTES = 4 * 1024 * 1024;

  /** A rename's answer carries the whole new text of every file it changes. */
  private static final int MAX_CODE_ANSWER_BYTES = 64 * 1024 * 1024;

  /**
   * How long a question about code waits for an editor: below the companion's own bound, so that
   * the asker hears this companion's reason, not a bare time-out.
   */
  static final Duration CODE_ANSWER_WAIT = CompanionHost.CODE_ANSWER_BOUND.minusSeconds(5);

  /**
   * What the review page says it is with {@code ?client=}: it follows the stream but opens no
   * files.
   */
  public static final String REVIEW_PAGE = "review-page";

  /** Only the newest context matters to a subscriber that fell behind. */
  private static final String CONTEXT_KEY = "context";

  private static final Pattern ONE_DIFF = Pattern.compile("/diffs/([^/]+)");
  private static final Pattern ANSWER = Pattern.compile("/diffs/([^/]+)/(accept|reject)");
  private static final Pattern CHANGE_ANSWER = Pattern.compile("/changes/([^/]+)/(accept|reject)");
  private static final Pattern CODE_ANSWER = Pattern.compile("/code/([^/]+)");

  private final AtomicReference<Companion> companion = new AtomicReference<>();
  private final transient EventStreams events = new EventStreams();
  private final transient CodeQueries codeQueries = new CodeQueries();

  public static String pathSpec() {
    return PATH + "/*";
  }

  /** Binds the API to the companion it serves; call before the companion starts. */
  public void attach(Companion target) {
    companion.set(target);
    target.addListener(this);
  }

  /** Ends every event stream, e.g. before the companion stops. */
  public void shutdown() {
    events.close();
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    String route = HttpBodies.route(req);
    Matcher one = ONE_DIFF.matcher(route);
    switch (route) {
      case "/state" -> HttpBodies.json(resp, 200, EditorJson.State.of(companion.get()));
      case "/diffs" -> {
        Companion c = companion.get();
        List<ConnectedClient> clients = c.clients();
        HttpBodies.json(
            resp, 200, c.pendingDiffs().stream().map(d -> EditorJson.Diff.of(d, clients)).toList());
      }
      case "/events/stream" -> subscribe(req, resp);
      // What `companion4j run` sets, so an editor's terminal starts a CLI that connects here.
      case "/terminal" -> HttpBodies.json(resp, 200, companion.get().terminalEnvironment());
      default -> {
        if (one.matches()) {
          getDiff(one.group(1), resp);
        } else {
          notFound(req, resp);
        }
      }
    }
  }

  @Override
  protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    String route = HttpBodies.route(req);
    Matcher codeAnswer = CODE_ANSWER.matcher(route);
    byte[] bytes =
        HttpBodies.readFirst(
            req, resp, codeAnswer.matches() ? MAX_CODE_ANSWER_BYTES : MAX_BODY_BYTES);
    if (bytes == null) {
      return;
    }
    if (codeAnswer.matches()) {
      answerCode(codeAnswer.group(1), bytes, resp);
      return;
    }
    Matcher answer = ANSWER.matcher(route);
    if (route.equals("/diffs/accept") || route.equals("/diffs/reject")) {
      HttpBodies.error(
          resp,
          404,
          "POST "
              + PATH
              + route
              + " is gone: it could answer a proposal the caller never saw. "
              + "Answer a diff by its id (from GET "
              + PATH
              + "/diffs or a diffOpened event) at "
              + PATH
              + "/diffs/{id}/accept or "
              + PATH
              + "/diffs/{id}/reject");
      return;
    }
    Matcher changeAnswer = CHANGE_ANSWER.matcher(route);
    if (!route.equals("/events") && !answer.matches() && !changeAnswer.matches()) {
      notFound(req, resp);
      return;
    }
    try {
      if (changeAnswer.matches()) {
        DiffId id = EditorRequests.changeId(changeAnswer.group(1));
        if (changeAnswer.group(2).equals("accept")) {
          acceptChange(id, EditorRequests.editedFiles(JsonFields.parse(bytes)), resp);
        } else {
          answered(id, companion.get().rejectChange(id), resp);
        }
      } else if (answer.matches()) {
        boolean accept = answer.group(2).equals("accept");
        answer(
            EditorRequests.diffId(answer.group(1)),
            accept,
            EditorRequests.acceptedContent(JsonFields.parse(bytes), accept),
            resp);
      } else {
        companion.get().editorEvent(EditorRequests.event(JsonFields.parse(bytes)));
        resp.setStatus(204);
      }
    } catch (BadRequest e) {
      HttpBodies.error(resp, 400, e.getMessage());
    }
  }

  private void subscribe(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    String client = req.getParameter("client");
    events.subscribe(req, resp, REVIEW_PAGE.equals(client) ? REVIEW_PAGE : "");
  }

  /**
   * Asks the editors following the event stream to show a place, with an {@code openFile} event to
   * every subscriber; line and character are 1-based, 0 when not given.
   *
   * @return how many subscribers other than review pages were asked
   */
  public int requestOpen(Path path, int line, int character) {
    Map<String, Object> place = new LinkedHashMap<>();
    place.put("path", path.toString());
    if (line > 0) {
      place.put("line", line);
    }
    if (character > 0) {
      place.put("character", character);
    }
    events.publish("openFile", null, place);
    return events.subscribersExcept(REVIEW_PAGE);
  }

  /**
   * Asks the editors following the event stream a question about code with a {@code codeQuery}
   * event, and waits for the first answer, at most {@link #CODE_ANSWER_WAIT}. Call on the
   * companion's code thread.
   *
   * @return the editor's results (for a rename: none, see {@link #renameEdits})
   * @throws HostActionException when no editor follows the stream, none answered in time, or the
   *     editor said it cannot answer (its words)
   */
  public List<CodeResult> findCode(CodeQuery query) throws HostActionException {
    return ((CodeQueries.Answer.Results) ask(query)).results();
  }

  /** Asks the editors for a rename's edits, as {@link #findCode} asks. */
  public Map<Path, String> renameEdits(CodeQuery.Rename rename) throws HostActionException {
    return ((CodeQueries.Answer.Files) ask(rename)).files();
  }

  /** The answer is of the query's kind: {@link #answerCode} checked it. */
  private CodeQueries.Answer ask(CodeQuery query) throws HostActionException {
    if (events.subscribersExcept(REVIEW_PAGE) == 0) {
      throw new HostActionException(
          "No editor follows this companion (none reads GET "
              + PATH
              + "/events/stream), so none can answer questions about code; an editor plugin"
              + " attached to it answers them from its language tools");
    }
    CodeQueries.Asked asked = codeQueries.open(query);
    String why = "its asker stopped waiting";
    try {
      events.publish("codeQuery", null, CodeQueries.event(asked.id(), query));
      CodeQueries.Answer answer =
          asked.answer().get(CODE_ANSWER_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      if (answer instanceof CodeQueries.Answer.Refused refused) {
        throw new HostActionException("The editor cannot answer: " + refused.why());
      }
      return answer;
    } catch (TimeoutException e) {
      why = "no editor answered it within " + CODE_ANSWER_WAIT.toSeconds() + " s";
      throw new HostActionException(
          "No editor answered within "
              + CODE_ANSWER_WAIT.toSeconds()
              + " s; the editors following this companion may not answer questions about code");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HostActionException("The companion is stopping");
    } catch (ExecutionException e) {
      throw new IllegalStateException("a query's answer is never exceptional", e);
    } finally {
      codeQueries.withdraw(asked.id(), why);
    }
  }

  /** {@code POST /editor/code/{id}}: the first valid answer counts, later ones get 409. */
  private void answerCode(String segment, byte[] bytes, HttpServletResponse resp)
      throws IOException {
    try {
      DiffId id = EditorRequests.queryId(segment);
      Optional<CodeQueries.Asked> asked = codeQueries.pending(id);
      if (asked.isEmpty()) {
        refuseCodeAnswer(id, resp);
        return;
      }
      CodeQueries.Answer answer =
          EditorRequests.codeAnswer(
              JsonFields.parse(bytes), asked.get().rename(), companion.get().workspaceRoots());
      if (codeQueries.answer(id, answer) == CodeQueries.Taken.ANSWERED) {
        resp.setStatus(204);
      } else {
        refuseCodeAnswer(id, resp);
      }
    } catch (BadRequest e) {
      HttpBodies.error(resp, 400, e.getMessage());
    }
  }

  private void refuseCodeAnswer(DiffId id, HttpServletResponse resp) throws IOException {
    Optional<String> ended = codeQueries.howEnded(id);
    if (ended.isPresent()) {
      HttpBodies.error(
          resp,
          409,
          "query "
              + id
              + " is no longer pending: "
              + ended.get()
              + "; this answer changed nothing");
    } else {
      HttpBodies.error(
          resp, 404, "no query " + id + " is known: it was never asked here, or it ended long ago");
    }
  }

  private void getDiff(String segment, HttpServletResponse resp) throws IOException {
    DiffId id;
    try {
      id = EditorRequests.diffId(segment);
    } catch (BadRequest e) {
      HttpBodies.error(resp, 400, e.getMessage());
      return;
    }
    Companion c = companion.get();
    Optional<PendingDiff> diff = c.pendingDiff(id);
    if (diff.isPresent()) {
      HttpBodies.json(resp, 200, EditorJson.Diff.of(diff.get(), c.clients()));
    } else {
      HttpBodies.error(resp, 404, "diff " + id + " is not pending");
    }
  }

  /**
   * Answers diff {@code id}; only a 204 means the CLI will hear it.
   *
   * @param content the edited text to accept, or null for the proposal as it is
   */
  private void answer(DiffId id, boolean accept, String content, HttpServletResponse resp)
      throws IOException {
    AnswerResult result =
        accept ? companion.get().acceptDiff(id, content) : companion.get().rejectDiff(id);
    if (result instanceof AnswerResult.Sent) {
      resp.setStatus(204);
    } else if (result instanceof AnswerResult.Ended ended) {
      EditorJson.Outcome outcome = EditorJson.Outcome.of(ended.outcome());
      if (outcome == EditorJson.Outcome.CLIENT_GONE) {
        HttpBodies.json(resp, 410, new EditorJson.Refusal(outcome.why, outcome.wireName));
      } else {
        HttpBodies.json(
            resp,
            409,
            new EditorJson.Refusal(
                "diff " + id + " is no longer pending: " + outcome.why, outcome.wireName));
      }
    } else {
      HttpBodies.error(
          resp,
          404,
          "no diff " + id + " is known: it was never proposed here, or it ended long ago");
    }
  }

  private void acceptChange(DiffId id, Map<Path, String> edited, HttpServletResponse resp)
      throws IOException {
    ChangeAnswer result;
    try {
      result = companion.get().acceptChange(id, edited);
    } catch (IllegalArgumentException e) {
      HttpBodies.error(resp, 400, e.getMessage());
      return;
    }
    answered(id, result, resp);
  }

  /** Only a 204 means the answer decided the change as asked. */
  private static void answered(DiffId id, ChangeAnswer result, HttpServletResponse resp)
      throws IOException {
    if (result instanceof ChangeAnswer.Decided decided
        && !(decided.outcome() instanceof ChangeOutcome.ChangedOnDisk)) {
      resp.setStatus(204);
    } else if (result instanceof ChangeAnswer.Decided decided) {
      refuse(
          resp,
          "files changed on disk since change " + id + " was proposed; nothing was written",
          decided.outcome());
    } else if (result instanceof ChangeAnswer.Ended ended) {
      refuse(
          resp,
          "change "
              + id
              + " is no longer pending: it ended as "
              + EditorJson.wireName(ended.outcome())
              + "; this answer changed nothing",
          ended.outcome());
    } else {
      HttpBodies.error(
          resp,
          404,
          "no change " + id + " is known: it was never proposed here, or it ended long ago");
    }
  }

  private static void refuse(HttpServletResponse resp, String why, ChangeOutcome outcome)
      throws IOException {
    HttpBodies.json(
        resp,
        409,
        new EditorJson.ChangeRefusal(
            why, EditorJson.wireName(outcome), EditorJson.filesChangedOnDisk(outcome)));
  }

  @Override
  public void changeOpened(PendingChange change) {
    events.publish("changeOpened", null, EditorJson.Change.of(change));
  }

  @Override
  public void changeClosed(PendingChange change, ChangeOutcome outcome) {
    events.publish("changeClosed", null, EditorJson.ClosedChange.of(change, outcome));
  }

  @Override
  public void clientConnected(ConnectedClient client) {
    events.publish("clientConnected", null, CompanionStatus.Client.of(client));
  }

  @Override
  public void clientDisconnected(ConnectedClient client) {
    events.publish("clientDisconnected", null, CompanionStatus.Client.of(client));
  }

  @Override
  public void diffOpened(PendingDiff diff) {
    events.publish("diffOpened", null, EditorJson.Diff.of(diff, companion.get().clients()));
  }

  @Override
  public void diffClosed(PendingDiff diff, DiffOutcome outcome) {
    events.publish("diffClosed", null, EditorJson.ClosedDiff.of(diff, outcome));
  }

  @Override
  public void contextSent(IdeContext context) {
    events.publish("context", CONTEXT_KEY, ContextUpdate.of(context));
  }

  @Override
  public void diagnosticsChanged(FileDiagnostics diagnostics) {
    // Per file, only the newest list matters to a subscriber that fell behind.
    events.publish("diagnostics", "diagnostics:" + diagnostics.path(), diagnostics);
  }

  private static void notFound(HttpServletRequest req, HttpServletResponse resp)
      throws IOException {
    HttpBodies.error(
        resp, 404, "no editor API route " + req.getMethod() + " " + PATH + HttpBodies.route(req));
  }
}
