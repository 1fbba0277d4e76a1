package dev.companion4j.engine.internal.server;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Connector;

/**
 * Closes a connection that has not sent one complete request head within a deadline of being
 * accepted. Jetty's idle timeout restarts with every byte, so a client trickling a header (or
 * sending nothing) would otherwise hold a descriptor for as long as it likes.
 *
 * <p>Runs on the connector's scheduler thread; closing an endpoint never blocks.
 */
final class HeaderDeadline implements Connection.Listener {
  private final Connector connector;
  private final long deadlineMillis;

  HeaderDeadline(Connector connector, Duration deadline) {
    this.connector = connector;
    this.deadlineMillis = deadline.toMillis();
  }

  @Override
  public void onOpened(Connection connection) {
    connector
        .getScheduler()
        .schedule(
            () -> {
              if (connection.getMessagesIn() == 0 && connection.getEndPoint().isOpen()) {
                connection.getEndPoint().close();
              }
            },
            deadlineMillis,
            TimeUnit.MILLISECONDS);
  }

  @Override
  public void onClosed(Connection connection) {
    // Nothing to release: the scheduled check finds the endpoint closed.
  }
}
