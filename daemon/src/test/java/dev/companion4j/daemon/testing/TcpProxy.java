package dev.companion4j.daemon.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP relay in front of the daemon, so a test can cut live connections (as a flaky
 * network would) or freeze them (as a half-dead one would) while the daemon keeps running.
 *
 * <p>The daemon rejects a {@code Host} header naming another port (DNS-rebinding protection), so
 * the relay rewrites the proxy's port to the daemon's in the requests it forwards.
 */
public final class TcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean frozen;
  private volatile boolean closed;

  public TcpProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The proxy's base URL. */
  public String url() {
    return "http://127.0.0.1:" + server.getLocalPort();
  }

  /** Closes every open connection; new ones are still accepted. */
  public void cutAll() {
    for (Socket socket : sockets) {
      closeQuietly(socket);
    }
    sockets.clear();
  }

  /** Stops relaying bytes on every connection without closing any; {@link #cutAll()} ends it. */
  public void freeze() {
    frozen = true;
  }

  /** Relays bytes again. */
  public void thaw() {
    frozen = false;
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    cutAll();
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket();
        upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5000);
        sockets.add(client);
        sockets.add(upstream);
        byte[] from =
            ("Host: 127.0.0.1:" + server.getLocalPort() + "\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] to = ("Host: 127.0.0.1:" + targetPort + "\r\n").getBytes(StandardCharsets.US_ASCII);
        pump(client, upstream, "up", from, to);
        pump(upstream, client, "down", null, null);
      } catch (IOException e) {
        if (!closed) {
          continue;
        }
        return;
      }
    }
  }

  private void pump(Socket from, Socket to, String direction, byte[] pattern, byte[] replacement) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[16384];
              byte[] carry = new byte[0];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  while (frozen && !from.isClosed()) {
                    synchronized (this) {
                      wait(50);
                    }
                  }
                  if (pattern == null) {
                    out.write(buffer, 0, n);
                  } else {
                    byte[] data = replaceAll(concat(carry, buffer, n), pattern, replacement);
                    int hold = partialMatchAtEnd(data, pattern);
                    out.write(data, 0, data.length - hold);
                    carry = Arrays.copyOfRange(data, data.length - hold, data.length);
                  }
                  out.flush();
                }
              } catch (IOException | InterruptedException e) {
                // Either side closed: close both below.
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "tcp-proxy-" + direction);
    thread.setDaemon(true);
    thread.start();
  }

  private static byte[] concat(byte[] head, byte[] buffer, int n) {
    byte[] out = Arrays.copyOf(head, head.length + n);
    System.arraycopy(buffer, 0, out, head.length, n);
    return out;
  }

  private static byte[] replaceAll(byte[] data, byte[] pattern, byte[] replacement) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(data.length);
    int i = 0;
    while (i < data.length) {
      if (matchesAt(data, i, pattern, pattern.length)) {
        out.write(replacement, 0, replacement.length);
        i += pattern.length;
      } else {
        out.write(data[i++]);
      }
    }
    return out.toByteArray();
  }

  /** How many trailing bytes could be the start of the pattern, to hold back until more arrive. */
  private static int partialMatchAtEnd(byte[] data, byte[] pattern) {
    for (int k = Math.min(data.length, pattern.length - 1); k > 0; k--) {
      if (matchesAt(data, data.length - k, pattern, k)) {
        return k;
      }
    }
    return 0;
  }

  private static boolean matchesAt(byte[] data, int offset, byte[] pattern, int length) {
    if (offset + length > data.length) {
      return false;
    }
    for (int j = 0; j < length; j++) {
      if (data[offset + j] != pattern[j]) {
        return false;
      }
    }
    return true;
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // Already closed.
    }
  }
}
