package dev.companion4j.daemon;

import dev.companion4j.daemon.internal.DaemonHttp;
import dev.companion4j.daemon.internal.EventStream;
import dev.companion4j.daemon.internal.Json;
import dev.companion4j.daemon.internal.UrlPolicy;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A client for a {@code qwen serve} daemon (HTTP and server-sent events).
 *
 * <p>The base URL defaults to {@code http://127.0.0.1:4170}. A URL with credentials in it is
 * refused, and so is a daemon off this machine without a token. The token is sent only as a bearer
 * header: never logged, never in a URL, never in {@link #toString()}.
 */
public final class DaemonClient implements AutoCloseable {
  /** Where {@code qwen serve} listens by default. */
  public static final String DEFAULT_URL = "http://127.0.0.1:4170";

  private static final Logger LOG = LoggerFactory.getLogger(DaemonClient.class);
  private static final AtomicInteger TIMERS = new AtomicInteger();

  private final DaemonHttp http;
  private final boolean hasToken;
  private final String clientId;
  private final EventStream.Settings streamSettings;
  private final ScheduledExecutorService timer;

  private DaemonClient(Builder builder) {
    String token = UrlPolicy.checkToken(builder.token);
    URI baseUrl = UrlPolicy.checkBaseUrl(builder.baseUrl, token != null);
    this.hasToken = token != null;
    this.clientId = UrlPolicy.checkClientId(builder.clientId);
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread =
                  new Thread(runnable, "companion4j-daemon-timer-" + TIMERS.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    this.http =
        new DaemonHttp(
            baseUrl,
            token,
            builder.connectTimeout,
            builder.requestTimeout,
            builder.maxResponseBytes,
            timer);
    this.streamSettings =
        new EventStream.Settings(
            builder.connectTimeout,
            builder.reconnectBudget,
            builder.heartbeatTimeout,
            builder.maxQueued,
            builder.maxEventBytes);
    if (hasToken
        && "http".equalsIgnoreCase(baseUrl.getScheme())
        && !UrlPolicy.isLoopback(baseUrl.getHost())) {
      LOG.warn(
          "the daemon at {} is reached over plain HTTP; its token travels unencrypted", baseUrl);
    }
  }

  /** A client for the daemon at {@code baseUrl} without a token (loopback only). */
  public static DaemonClient connect(String baseUrl) {
    return builder().baseUrl(baseUrl).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The daemon's address; it stays on this side, and a user interface shows {@link
   * #displayAddress()}.
   */
  public URI baseUrl() {
    return http.baseUrl();
  }

  /**
   * Where the daemon runs, for a user to read: {@code host:port} and nothing else of the address,
   * which may carry a path that is not the user's business.
   */
  public String displayAddress() {
    return http.displayAddress();
  }

  /** {@code GET /health}: the daemon's status word, {@code ok} when it serves. */
  public String health() {
    return Json.text(http.get("/health", null), "status");
  }

  /** {@code GET /capabilities}. */
  public Capabilities capabilities() {
    JsonNode json = http.get("/capabilities", null);
    return new Capabilities(
        (int) Json.number(json, "v", 0),
        Json.text(json, "qwenCodeVersion"),
        Json.text(json, "mode"),
        new HashSet<>(Json.strings(json, "features")),
        Json.text(json, "workspaceCwd"),
        Json.strings(json, "modelServices"));
  }

  /**
   * Creates a session, or attaches to the workspace's shared one ({@code POST /session}).
   *
   * @throws DaemonException e.g. {@code workspace_mismatch} when the daemon does not serve the
   *     workspace
   */
  public DaemonSession createOrAttach(SessionOptions options) {
    ObjectNode body = Json.object();
    if (options.workspaceCwd() != null) {
      body.put("cwd", options.workspaceCwd());
    }
    if (options.newThread()) {
      body.put("sessionScope", "thread");
    }
    if (options.approvalMode() != null) {
      body.put("approvalMode", options.approvalMode().wireName());
    }
    if (options.modelServiceId() != null) {
      body.put("modelServiceId", options.modelServiceId());
    }
    JsonNode json = http.post("/session", body, clientId);
    String sessionId = Json.text(json, "sessionId");
    if (sessionId == null) {
      throw new DaemonException(
          "POST /session: the daemon's answer has no sessionId", 200, null, null);
    }
    String stamped = Json.text(json, "clientId");
    return new DaemonSession(
        this,
        sessionId,
        stamped != null ? UrlPolicy.checkClientId(stamped) : clientId,
        Json.text(json, "workspaceCwd"),
        Json.bool(json, "attached"));
  }

  /**
   * Joins a live session by its id, e.g. one a terminal or a browser started; subscribing with
   * {@code afterEventId} 0 replays what the daemon still holds of it.
   *
   * @throws DaemonException with status 404 when the daemon holds no live session with that id
   */
  public DaemonSession attach(String sessionId) {
    if (sessionId == null || sessionId.isBlank()) {
      throw new IllegalArgumentException("session id is required");
    }
    JsonNode status = http.get("/session/" + DaemonHttp.segment(sessionId) + "/status", clientId);
    return new DaemonSession(this, sessionId, clientId, Json.text(status, "workspaceCwd"), true);
  }

  /** The sessions of a workspace on the daemon's host, most recent first. */
  public List<SessionSummary> listSessions(String workspaceCwd) {
    if (workspaceCwd == null || workspaceCwd.isBlank()) {
      throw new IllegalArgumentException("workspace path is required");
    }
    JsonNode json =
        http.get("/workspace/" + DaemonHttp.segment(workspaceCwd) + "/sessions?size=100", clientId);
    List<SessionSummary> out = new ArrayList<>();
    for (JsonNode s : json.path("sessions")) {
      out.add(
          new SessionSummary(
              Json.text(s, "sessionId"),
              Json.text(s, "workspaceCwd"),
              Json.text(s, "displayName"),
              Json.text(s, "createdAt"),
              Json.text(s, "updatedAt"),
              (int) Json.number(s, "clientCount", 0),
              Json.bool(s, "hasActivePrompt")));
    }
    return out;
  }

  /**
   * The text without this client's token, in any of the forms the client looks for (see the daemon
   * client's documentation). The client applies it to everything the daemon sends; a view that
   * joins the daemon's pieces of text applies it again to what it joined.
   */
  public String redact(String text) {
    return http.redact(text);
  }

  DaemonHttp http() {
    return http;
  }

  EventStream.Settings streamSettings() {
    return streamSettings;
  }

  ScheduledExecutorService timer() {
    return timer;
  }

  /** Stops the client's timer; sessions should be closed first. */
  @Override
  public void close() {
    timer.shutdownNow();
  }

  @Override
  public String toString() {
    return "DaemonClient[" + http.baseUrl() + ", token " + (hasToken ? "set" : "none") + "]";
  }

  /** Settings for a {@link DaemonClient}. */
  public static final class Builder {
    private String baseUrl = DEFAULT_URL;
    private String token;
    private String clientId;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration requestTimeout = Duration.ofSeconds(60);
    private Duration reconnectBudget = Duration.ofSeconds(60);
    private Duration heartbeatTimeout = Duration.ofSeconds(45);
    private Integer maxQueued;
    private int maxEventBytes = 16 * 1024 * 1024;
    private int maxResponseBytes = 4 * 1024 * 1024;

    private Builder() {}

    /** The daemon's address, e.g. {@code http://127.0.0.1:4170}. */
    public Builder baseUrl(String baseUrl) {
      this.baseUrl = baseUrl;
      return this;
    }

    /** The daemon's bearer token ({@code qwen serve --token}); required off loopback. */
    public Builder token(String token) {
      this.token = token;
      return this;
    }

    /** The client id to offer on {@code POST /session}; the daemon may stamp its own. */
    public Builder clientId(String clientId) {
      this.clientId = clientId;
      return this;
    }

    /** How long to wait for a connection and for a stream's first answer. */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positive(timeout, "connect timeout");
      return this;
    }

    /**
     * How long a request may take, its answer's body included (prompts are queued, so this is
     * short).
     */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = positive(timeout, "request timeout");
      return this;
    }

    /** How long the daemon may stay unreachable before a session is given up as dead. */
    public Builder reconnectBudget(Duration budget) {
      this.reconnectBudget = positive(budget, "reconnect budget");
      return this;
    }

    /**
     * How long an event stream may stay silent before it counts as dropped; the daemon sends a
     * heartbeat every 15 s, so keep this well above that.
     */
    public Builder heartbeatTimeout(Duration timeout) {
      this.heartbeatTimeout = positive(timeout, "heartbeat timeout");
      return this;
    }

    /** The daemon-side backlog per subscriber, 16 to 2048 (the daemon's default is 256). */
    public Builder maxQueued(int frames) {
      if (frames < 16 || frames > 2048) {
        throw new IllegalArgumentException("maxQueued must be between 16 and 2048, got " + frames);
      }
      this.maxQueued = frames;
      return this;
    }

    /**
     * The most one event of a session's stream may take, 1 KiB to 1 GiB (default 16 MiB); a longer
     * one ends the session with a {@link DaemonEvent.SessionDied} ({@code event_too_large}).
     */
    public Builder maxEventBytes(int bytes) {
      this.maxEventBytes = size(bytes, "maxEventBytes");
      return this;
    }

    /**
     * The longest JSON answer accepted, 1 KiB to 1 GiB (default 4 MiB); a longer one fails the
     * request.
     */
    public Builder maxResponseBytes(int bytes) {
      this.maxResponseBytes = size(bytes, "maxResponseBytes");
      return this;
    }

    /**
     * @throws IllegalArgumentException for a URL with credentials, a non-loopback URL without a
     *     token, a malformed token or client id
     */
    public DaemonClient build() {
      return new DaemonClient(this);
    }

    private static int size(int bytes, String what) {
      if (bytes < 1024 || bytes > 1024 * 1024 * 1024) {
        throw new IllegalArgumentException(what + " must be between 1 KiB and 1 GiB, got " + bytes);
      }
      return bytes;
    }

    private static Duration positive(Duration value, String what) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(what + " must be positive");
      }
      return value;
    }
  }
}
