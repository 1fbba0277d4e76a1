package dev.companion4j.daemon.testing;

import static org.awaitility.Awaitility.await;

import dev.companion4j.daemon.ConnectionStatus;
import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.DaemonListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** Records every event and connection change, for assertions. */
public class RecordingListener implements DaemonListener {
  private final List<DaemonEvent> events = new CopyOnWriteArrayList<>();
  private final List<ConnectionStatus> statuses = new CopyOnWriteArrayList<>();

  @Override
  public void onEvent(DaemonEvent event) {
    events.add(event);
  }

  @Override
  public void onConnectionChanged(ConnectionStatus status) {
    statuses.add(status);
  }

  public List<DaemonEvent> events() {
    return List.copyOf(events);
  }

  public List<ConnectionStatus> statuses() {
    return List.copyOf(statuses);
  }

  public <T extends DaemonEvent> List<T> events(Class<T> type) {
    return events.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
  }

  /** The events of one prompt's turn, of one type. */
  public <T extends DaemonEvent> List<T> events(Class<T> type, String promptId) {
    return events(type).stream()
        .filter(e -> promptId.equals(e.meta().promptId()))
        .collect(Collectors.toList());
  }

  /** The assistant's text of one prompt, concatenated. */
  public String answer(String promptId) {
    return events(DaemonEvent.AgentMessageChunk.class, promptId).stream()
        .map(DaemonEvent.AgentMessageChunk::text)
        .collect(Collectors.joining());
  }

  /** Waits for the first event of a type that matches. */
  public <T extends DaemonEvent> T awaitEvent(
      Class<T> type, Predicate<T> matching, Duration timeout) {
    return await()
        .atMost(timeout)
        .until(
            () -> events(type).stream().filter(matching).findFirst().orElse(null), e -> e != null);
  }

  /** Waits for a connection state. */
  public ConnectionStatus awaitStatus(ConnectionStatus.State state, Duration timeout) {
    return await()
        .atMost(timeout)
        .until(
            () -> statuses.stream().filter(s -> s.state() == state).findFirst().orElse(null),
            s -> s != null);
  }
}
