package dev.companion4j.daemon;

import dev.companion4j.daemon.internal.DaemonHttp;
import dev.companion4j.daemon.internal.EventStream;
import dev.companion4j.daemon.internal.Json;
import dev.companion4j.daemon.internal.TurnTracker;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One daemon session, bound to the client id the daemon stamped for this attachment.
 *
 * <p>Subscribe first, then prompt: a turn's events and its end arrive on the subscription. Files,
 * tools, MCP servers and credentials the agent uses live on the daemon's host, not on this one.
 */
public final class DaemonSession implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DaemonSession.class);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(3);

  private final DaemonClient client;
  private final String sessionId;
  private final String clientId;
  private final String workspaceCwd;
  private final boolean attached;
  private final TurnTracker turns = new TurnTracker();
  private volatile EventStream events;

  /** The subscription while it opens; guarded by this. */
  private EventStream opening;

  DaemonSession(
      DaemonClient client,
      String sessionId,
      String clientId,
      String workspaceCwd,
      boolean attached) {
    this.client = client;
    this.sessionId = sessionId;
    this.clientId = clientId;
    this.workspaceCwd = workspaceCwd;
    this.attached = attached;
  }

  public String sessionId() {
    return sessionId;
  }

  /** The id the daemon stamped for this attachment, or {@code null} from older daemons. */
  public String clientId() {
    return clientId;
  }

  /** The session's workspace: a path on the daemon's host. */
  public String workspaceCwd() {
    return workspaceCwd;
  }

  /** Whether this attached to a session that already existed. */
  public boolean attached() {
    return attached;
  }

  /** Subscribes to events from now on. Returns once the daemon accepted the subscription. */
  public void subscribe(DaemonListener listener) {
    subscribe(listener, -1);
  }

  /**
   * Subscribes, replaying the events after {@code afterEventId} that the daemon still holds ({@code
   * 0} replays all of them).
   *
   * @throws IllegalStateException when already subscribed
   * @throws DaemonException when the daemon refuses or cannot be reached
   */
  public void subscribe(DaemonListener listener, long afterEventId) {
    if (listener == null) {
      throw new IllegalArgumentException("listener is required");
    }
    EventStream stream;
    synchronized (this) {
      if (events != null || opening != null) {
        throw new IllegalStateException("session " + sessionId + " is already subscribed");
      }
      stream =
          new EventStream(
              client.http(),
              sessionId,
              clientId,
              listener,
              turns,
              client.streamSettings(),
              client.timer(),
              EventStream.Clock.SYSTEM);
      opening = stream;
    }
    // Waits for the daemon (bounded) without the lock, so a close meanwhile is not held up.
    try {
      stream.start(afterEventId);
    } catch (RuntimeException e) {
      synchronized (this) {
        opening = null;
      }
      throw e;
    }
    synchronized (this) {
      opening = null;
      events = stream;
    }
  }

  /** The id of the last event delivered to the listener, or {@code -1} before the first. */
  public long lastEventId() {
    EventStream stream = events;
    return stream == null ? -1 : stream.lastEventId();
  }

  /**
   * Sends a text prompt. The daemon queues it and answers at once; the answer streams to the
   * listener.
   *
   * @throws IllegalStateException when not subscribed, since the turn's events would be missed
   */
  public PromptTurn prompt(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("prompt text must not be empty");
    }
    EventStream stream = events;
    if (stream == null) {
      throw new IllegalStateException("subscribe to session " + sessionId + " before prompting");
    }
    ObjectNode body = Json.object();
    body.putArray("prompt").addObject().put("type", "text").put("text", text);
    JsonNode accepted = client.http().post(sessionPath("/prompt"), body, clientId);
    String promptId = Json.text(accepted, "promptId");
    if (promptId == null) {
      throw new DaemonException(
          "POST " + sessionPath("/prompt") + ": the daemon's answer has no promptId",
          202,
          null,
          null);
    }
    stream.noteDaemonCursor(Json.number(accepted, "lastEventId", -1));
    return new PromptTurn(promptId, turns.register(promptId));
  }

  /** Cancels the running turn; it ends with stop reason {@code cancelled}. */
  public void cancel() {
    client.http().post(sessionPath("/cancel"), Json.object(), clientId);
  }

  /**
   * Switches the session's model; a {@link DaemonEvent.ModelSwitched} event follows.
   *
   * @throws DaemonException with the daemon's reason when the model is unknown
   */
  public void setModel(String modelId) {
    if (modelId == null || modelId.isBlank()) {
      throw new IllegalArgumentException("model id must not be empty");
    }
    ObjectNode body = Json.object().put("modelId", modelId.trim());
    client.http().post(sessionPath("/model"), body, clientId);
  }

  /**
   * Answers a permission request.
   *
   * @return false when the request was no longer pending (already decided, e.g. by another client)
   */
  public boolean respondToPermission(String requestId, PermissionDecision decision) {
    if (requestId == null || requestId.isBlank()) {
      throw new IllegalArgumentException("request id must not be empty");
    }
    if (decision == null) {
      throw new IllegalArgumentException("decision is required");
    }
    ObjectNode body = Json.object();
    ObjectNode outcome = body.putObject("outcome");
    if (decision.optionId() == null) {
      outcome.put("outcome", "cancelled");
    } else {
      outcome.put("outcome", "selected").put("optionId", decision.optionId());
    }
    try {
      client
          .http()
          .post(sessionPath("/permission/" + DaemonHttp.segment(requestId)), body, clientId);
      return true;
    } catch (DaemonException e) {
      if (e.status() == 404) {
        return false;
      }
      throw e;
    }
  }

  /** Stops the subscription and tells the daemon this client left; the session lives on. */
  public void detach() {
    stopEvents();
    client.http().post(sessionPath("/detach"), Json.object(), clientId);
  }

  /**
   * Closes the session on the daemon for every client ({@code DELETE /session/:id}); a subscribed
   * listener then receives {@link DaemonEvent.SessionClosed} and the subscription ends.
   */
  public void delete() {
    client.http().delete("/session/" + DaemonHttp.segment(sessionId), clientId);
  }

  /**
   * Stops the subscription and detaches, ignoring a daemon that is gone or slow: leaving must not
   * wait on it for long (the daemon reaps idle attachments itself).
   */
  @Override
  public void close() {
    stopEvents();
    try {
      client.http().post(sessionPath("/detach"), Json.object(), clientId, CLOSE_TIMEOUT);
    } catch (DaemonException e) {
      LOG.debug("detach from session {} failed: {}", sessionId, e.getMessage());
    }
  }

  private void stopEvents() {
    EventStream stream;
    synchronized (this) {
      stream = events != null ? events : opening;
    }
    if (stream != null) {
      stream.close();
    }
  }

  private String sessionPath(String suffix) {
    return "/session/" + DaemonHttp.segment(sessionId) + suffix;
  }

  @Override
  public String toString() {
    return "DaemonSession[" + sessionId + " at " + workspaceCwd + "]";
  }
}
