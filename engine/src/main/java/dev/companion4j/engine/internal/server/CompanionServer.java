package dev.companion4j.engine.internal.server;

import dev.companion4j.engine.http.HttpBodies;
import dev.companion4j.engine.internal.session.RegisteringTransportProvider;
import dev.companion4j.engine.internal.session.SessionRegistry;
import dev.companion4j.engine.internal.sse.Liveness;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of a companion: embedded Jetty on loopback, the MCP SDK's Streamable HTTP servlet
 * at {@code /mcp}, and any routes the host adds, all behind {@link RequestGuard}.
 */
public final class CompanionServer {
  private static final Logger log = LoggerFactory.getLogger(CompanionServer.class);

  /** The single MCP endpoint both CLIs connect to. */
  public static final String MCP_PATH = "/mcp";

  /**
   * A route a host serves on the companion's port.
   *
   * @param open whether it serves without the token (static assets of a page, GET and HEAD only)
   * @param mcp whether it is a stateless MCP server: its messages checked and its errors cleaned as
   *     {@code /mcp}'s ({@link StatelessMcpFilter}), every Origin refused
   */
  public record Route(String pathSpec, HttpServlet servlet, boolean open, boolean mcp) {
    public Route(String pathSpec, HttpServlet servlet, boolean open) {
      this(pathSpec, servlet, open, false);
    }
  }

  /** Everything the server needs, decided by the engine. */
  public record Settings(
      String authToken,
      String serverName,
      String serverVersion,
      int maxBodyBytes,
      List<SyncToolSpecification> tools,
      List<Route> routes,
      SessionRegistry sessions,
      Liveness liveness) {}

  /** The most connections served at once; CLIs use two or three each, a review page a few. */
  static final int MAX_CONNECTIONS = 128;

  /** How long a new connection may take to send its first complete request head. */
  static final Duration HEADER_DEADLINE = Duration.ofSeconds(10);

  /** How long a stop waits for open requests, and for the MCP server to close. */
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(2);

  private static final JsonSchemaValidator NO_SCHEMA_VALIDATION =
      (schema, value) -> JsonSchemaValidator.ValidationResponse.asValid(null);

  private final Settings settings;
  private final Server jetty;
  private final ServerConnector connector;
  private volatile int port = -1;
  private HttpServletStreamableServerTransportProvider transport;
  private McpSyncServer mcp;

  public CompanionServer(Settings settings) {
    this.settings = settings;
    QueuedThreadPool threads = new QueuedThreadPool(64, 2);
    threads.setName("companion4j-http");
    threads.setDaemon(true);
    jetty =
        new Server(threads, new ScheduledExecutorScheduler("companion4j-http-timer", true), null);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendDateHeader(false);
    connector = new ServerConnector(jetty, 1, 1, new HttpConnectionFactory(http));
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    // Against descriptor exhaustion by idle or half-open connections: at most this many at once
    // (further ones wait in the backlog), and none may sit without a whole request head for long.
    jetty.addBean(new NetworkConnectionLimit(MAX_CONNECTIONS, connector));
    connector.addEventListener(new HeaderDeadline(connector, HEADER_DEADLINE));
    jetty.setStopTimeout(STOP_TIMEOUT.toMillis());
  }

  /**
   * Binds the loopback port. Connections made from now on wait in the socket's backlog until {@link
   * #start()} serves them, so the discovery files can be written before the heavier MCP set-up
   * runs.
   */
  public void open() throws Exception {
    connector.open();
    port = connector.getLocalPort();
  }

  /** Sets up MCP and the routes and starts serving on the port {@link #open()} bound. */
  public void start() throws Exception {
    McpJsonMapper jsonMapper = new JacksonMcpJsonMapper(HttpBodies.JSON);
    transport =
        HttpServletStreamableServerTransportProvider.builder()
            .jsonMapper(jsonMapper)
            .mcpEndpoint(MCP_PATH)
            .maxRequestSize(settings.maxBodyBytes())
            // The engine's liveness sweep pings the sessions; the SDK's own pinger would be a
            // second.
            .keepAliveInterval(null)
            .build();
    mcp =
        // Sessions are registered through the factory; pings are the registry's, not the SDK's.
        McpServer.sync(new RegisteringTransportProvider(transport, settings.sessions()))
            .serverInfo(settings.serverName(), settings.serverVersion())
            .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
            // The engine validates arguments itself, with messages that name the problem; the
            // SDK's schema validator would only cost start-up time.
            .validateToolInputs(false)
            .jsonSchemaValidator(NO_SCHEMA_VALIDATION)
            // The tools only validate, read one file and hand over to the host, which must answer
            // promptly: run them on the request's thread rather than hop to another pool.
            .immediateExecution(true)
            .tools(settings.tools())
            .build();

    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    settings.liveness().serve(context.getServletContext());
    List<String> hostSpecs =
        settings.routes().stream().filter(r -> !r.mcp()).map(Route::pathSpec).toList();
    List<String> openSpecs =
        settings.routes().stream().filter(Route::open).map(Route::pathSpec).toList();
    RequestGuard guard =
        new RequestGuard(
            settings.authToken(),
            this::port,
            path -> hostSpecs.stream().anyMatch(spec -> matches(path, spec)),
            path -> openSpecs.stream().anyMatch(spec -> matches(path, spec)),
            settings.maxBodyBytes());
    addFilter(context, guard, "/*");
    addFilter(
        context, new McpTransportFilter(settings.sessions(), settings.maxBodyBytes()), MCP_PATH);
    for (Route route : settings.routes()) {
      if (route.mcp()) {
        addFilter(context, new StatelessMcpFilter(settings.maxBodyBytes()), route.pathSpec());
      }
    }
    ServletHolder mcpServlet = new ServletHolder("mcp", transport);
    mcpServlet.setAsyncSupported(true);
    context.addServlet(mcpServlet, MCP_PATH);
    for (Route route : settings.routes()) {
      ServletHolder holder = new ServletHolder(route.servlet());
      holder.setAsyncSupported(true);
      context.addServlet(holder, route.pathSpec());
    }
    context.setErrorHandler(new JsonErrorHandler());
    jetty.setHandler(context);
    // Requests refused before the context (a bad request line, URI or Host) get the server's.
    jetty.setErrorHandler(new JsonErrorHandler());
    jetty.start();
  }

  private static void addFilter(
      ServletContextHandler context, jakarta.servlet.Filter filter, String pathSpec) {
    FilterHolder holder = new FilterHolder(filter);
    // Without async support the SDK's SSE streams fail with 500 while the CLI still looks
    // connected.
    holder.setAsyncSupported(true);
    context.addFilter(holder, pathSpec, EnumSet.of(DispatcherType.REQUEST));
  }

  /**
   * Whether {@code path} is served by the servlet mapped at {@code pathSpec}, as Jetty routes: a
   * {@code /x/*} spec serves {@code /x} and everything below it, any other spec that path alone (an
   * exact {@code /ide/proof} must not open {@code /ide/proof/…}, which {@code /ide/*} serves).
   */
  private static boolean matches(String path, String pathSpec) {
    if (!pathSpec.endsWith("/*")) {
      return path.equals(pathSpec);
    }
    String prefix = pathSpec.substring(0, pathSpec.length() - 2);
    return path.equals(prefix) || path.startsWith(prefix + "/");
  }

  /** The port the OS assigned; -1 before start, and still the same after stop. */
  public int port() {
    return port;
  }

  public void stop() {
    try {
      if (mcp != null) {
        // Bounded like the rest of a stop; the sessions are closed by the registry already.
        mcp.getAsyncServer().closeGracefully().block(STOP_TIMEOUT);
      }
    } catch (RuntimeException e) {
      // Shutting down anyway; the sessions go with the server.
    }
    try {
      jetty.stop();
    } catch (Exception e) {
      // Connections that did not end within the stop timeout were closed anyway.
      log.debug("Jetty stopped with {}", e.toString());
    }
    // A port opened but never started is not closed by stopping the server.
    connector.close();
  }
}
