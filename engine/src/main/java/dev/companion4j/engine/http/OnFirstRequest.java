package dev.companion4j.engine.http;

import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import java.io.IOException;
import java.util.Objects;

/**
 * A route's servlet set up on the route's first request rather than when the companion starts: for
 * routes whose set-up costs start-up time that most starts never need. A set-up that fails fails
 * that request, and the next request tries again.
 */
public final class OnFirstRequest extends HttpServlet {
  private static final long serialVersionUID = 1L;

  /** Makes the servlet; it is initialised with this one's configuration before it serves. */
  @FunctionalInterface
  public interface Setup {
    HttpServlet create() throws ServletException;
  }

  private final transient Setup setup;

  /** Written once, under this object's lock. */
  private transient volatile HttpServlet servlet;

  public OnFirstRequest(Setup setup) {
    this.setup = Objects.requireNonNull(setup, "setup");
  }

  @Override
  public void service(ServletRequest req, ServletResponse res)
      throws ServletException, IOException {
    HttpServlet ready = servlet;
    (ready != null ? ready : setUp()).service(req, res);
  }

  private synchronized HttpServlet setUp() throws ServletException {
    if (servlet == null) {
      HttpServlet made = setup.create();
      made.init(getServletConfig());
      servlet = made;
    }
    return servlet;
  }

  @Override
  public synchronized void destroy() {
    if (servlet != null) {
      servlet.destroy();
    }
  }
}
