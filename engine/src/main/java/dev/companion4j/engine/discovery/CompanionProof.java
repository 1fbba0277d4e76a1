package dev.companion4j.engine.discovery;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How a client tells the companion a discovery file names from whatever else now listens on its
 * port, before it sends that file's token anywhere. A companion that was killed leaves its lock
 * behind, and any local user may bind the freed port: a client that trusted the lock would hand
 * that user the token, the editor's context and its terminal.
 *
 * <p>The client sends a fresh random nonce to {@value #PATH} without the token; the companion
 * answers {@code {"proof": hex(SHA-256("companion4j-proof:" + nonce + ":" + token))}}, which only a
 * holder of the token can compute. The nonce has a fixed form, so no answer to one nonce serves for
 * another. Every client (the editor plugins, the extension, {@code companion4j status}) runs the
 * same check; docs/editor-api.md describes it for plugins in other languages.
 */
public final class CompanionProof {
  /** The route that answers the challenge; it alone needs no token. */
  public static final String PATH = "/ide/proof";

  private static final Pattern NONCE = Pattern.compile("[0-9a-f]{64}");
  private static final SecureRandom RANDOM = new SecureRandom();

  /** The answer is one short JSON object. */
  private static final int MAX_ANSWER_BYTES = 1024;

  private CompanionProof() {}

  /** A fresh nonce: 64 lowercase hex digits from {@link SecureRandom}. */
  public static String nonce() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /** Whether {@code text} has the form of a nonce: exactly 64 lowercase hex digits. */
  public static boolean isNonce(String text) {
    return text != null && NONCE.matcher(text).matches();
  }

  /**
   * The proof of holding {@code token} for {@code nonce}.
   *
   * @throws IllegalArgumentException when {@code nonce} is not of the nonce's form
   */
  public static String answer(String nonce, String token) {
    if (!isNonce(nonce)) {
      throw new IllegalArgumentException("a nonce is 64 lowercase hex digits");
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(
                  ("companion4j-proof:" + nonce + ":" + token).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /**
   * Whether whatever listens on loopback {@code port} proves that it holds {@code token}. Sends a
   * fresh nonce and nothing else; false when nothing answers within {@code timeout}, the answer is
   * malformed or the proof is wrong.
   */
  public static boolean holdsToken(int port, String token, Duration timeout) {
    if (port <= 0 || port > 65_535) {
      return false;
    }
    String nonce = nonce();
    try {
      // No proxy: the challenge is for this machine's loopback, and a proxy would be a third party.
      HttpURLConnection c =
          (HttpURLConnection)
              URI.create("http://127.0.0.1:" + port + PATH + "?nonce=" + nonce)
                  .toURL()
                  .openConnection(Proxy.NO_PROXY);
      int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
      c.setConnectTimeout(millis);
      c.setReadTimeout(millis);
      c.setInstanceFollowRedirects(false);
      try {
        if (c.getResponseCode() != 200) {
          return false;
        }
        byte[] body;
        try (InputStream in = c.getInputStream()) {
          body = in.readNBytes(MAX_ANSWER_BYTES + 1);
        }
        if (body.length > MAX_ANSWER_BYTES) {
          return false;
        }
        Optional<String> proof = DiscoveryJson.proof(body);
        return proof.isPresent()
            && MessageDigest.isEqual(
                proof.get().getBytes(StandardCharsets.UTF_8),
                answer(nonce, token).getBytes(StandardCharsets.UTF_8));
      } finally {
        c.disconnect();
      }
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }
}
