package dev.companion4j.engine.internal.server;

import dev.companion4j.engine.http.HttpBodies;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.function.Supplier;

/** Answers GET with a snapshot as JSON; every other method gets 405 from the servlet base. */
public final class JsonGetServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  private final transient Supplier<?> snapshot;

  public JsonGetServlet(Supplier<?> snapshot) {
    this.snapshot = snapshot;
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    HttpBodies.json(resp, 200, snapshot.get());
  }
}
