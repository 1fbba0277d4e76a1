package dev.companion4j.engine.internal.server;

import dev.companion4j.engine.discovery.CompanionProof;
import dev.companion4j.engine.http.HttpBodies;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;

/**
 * {@code GET /ide/proof?nonce=…}: proves to a client that read this companion's discovery file that
 * the companion holds the file's token, before the client sends it ({@link CompanionProof}). The
 * one route without the token; Host and Origin are checked as everywhere. Runs on Jetty's threads.
 */
public final class ProofRoute extends HttpServlet {
  private static final long serialVersionUID = 1L;

  private final String token;

  public ProofRoute(String token) {
    this.token = token;
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    String nonce = req.getParameter("nonce");
    if (!CompanionProof.isNonce(nonce)) {
      HttpBodies.error(resp, 400, "expected ?nonce= with 64 lowercase hex digits");
      return;
    }
    HttpBodies.json(resp, 200, Map.of("proof", CompanionProof.answer(nonce, token)));
  }

  @Override
  public String toString() {
    return "ProofRoute";
  }
}
