package dev.companion4j.cli.editorapi;

import dev.companion4j.engine.internal.server.AsyncEnd;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import tools.jackson.databind.json.JsonMapper;

/** Server-sent events to every subscribed editor or page. */
final class EventStream {
  private final List<Subscriber> subscribers = new CopyOnWriteArrayList<>();

  private static final class Subscriber {
    final AsyncContext async;
    final PrintWriter out;

    Subscriber(AsyncContext async, PrintWriter out) {
      this.async = async;
      this.out = out;
    }
  }

  void subscribe(HttpServletRequest request, HttpServletResponse response) throws IOException {
    response.setStatus(200);
    response.setContentType("text/event-stream");
    response.setCharacterEncoding(StandardCharsets.UTF_8.name());
    response.setHeader("Cache-Control", "no-cache");
    response.setHeader("X-Accel-Buffering", "no");
    AsyncContext async = request.startAsync();
    async.setTimeout(0);
    Subscriber subscriber = new Subscriber(async, response.getWriter());
    AsyncEnd.onEnd(async, () -> subscribers.remove(subscriber));
    subscribers.add(subscriber);
    // An opening comment lets the client see the stream is live before any event.
    write(subscriber, ": connected\n\n");
  }

  void publish(String event, Object data) {
    String frame = "event: " + event + "\ndata: " + JsonMapper.shared().writeValueAsString(data) + "\n\n";
    subscribers.forEach(s -> write(s, frame));
  }

  void heartbeat() {
    subscribers.forEach(s -> write(s, ": heartbeat\n\n"));
  }

  void closeAll() {
    for (Subscriber s : subscribers) {
      try {
        s.async.complete();
      } catch (IllegalStateException alreadyDone) {
        // Completed by its own error listener meanwhile.
      }
    }
    subscribers.clear();
  }

  int size() {
    return subscribers.size();
  }

  private void write(Subscriber s, String frame) {
    synchronized (s) {
      s.out.write(frame);
      s.out.flush();
      if (s.out.checkError()) {
        subscribers.remove(s);
        try {
          s.async.complete();
        } catch (IllegalStateException alreadyDone) {
          // The container ended it first.
        }
      }
    }
  }
}
