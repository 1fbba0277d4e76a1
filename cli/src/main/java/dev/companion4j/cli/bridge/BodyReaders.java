package dev.companion4j.cli.bridge;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.function.Consumer;

/**
 * How the bridge reads the companion's answers to its POSTs: as they arrive, or collected within a
 * cap. Every callback runs in the HTTP client's threads, one at a time; a failed exchange calls
 * none of them, since the sender's own handler answers for it.
 */
final class BodyReaders {
  private BodyReaders() {}

  /** Hands each received buffer to {@code bytes}, then runs {@code end} when the body ended. */
  static HttpResponse.BodySubscriber<Void> streaming(Consumer<ByteBuffer> bytes, Runnable end) {
    return HttpResponse.BodySubscribers.fromSubscriber(new Bytes(bytes, end), s -> null);
  }

  /**
   * Collects a body of at most {@code max} bytes and hands it over at its end: null when it was
   * longer and {@code strict}, else what fit.
   */
  static HttpResponse.BodySubscriber<Void> collect(int max, boolean strict, Consumer<byte[]> done) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    boolean[] over = {false};
    return streaming(
        buffer -> {
          int take = Math.min(buffer.remaining(), max - body.size());
          over[0] |= take < buffer.remaining();
          byte[] bytes = new byte[take];
          buffer.get(bytes);
          body.write(bytes, 0, take);
          buffer.position(buffer.limit());
        },
        () -> done.accept(over[0] && strict ? null : body.toByteArray()));
  }

  private static final class Bytes implements Flow.Subscriber<List<ByteBuffer>> {
    private final Consumer<ByteBuffer> bytes;
    private final Runnable end;
    private Flow.Subscription subscription;

    Bytes(Consumer<ByteBuffer> bytes, Runnable end) {
      this.bytes = bytes;
      this.end = end;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      s.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
      buffers.forEach(bytes);
      subscription.request(1);
    }

    @Override
    public void onError(Throwable t) {
      // The exchange fails with it; the sender's handler answers for the request.
    }

    @Override
    public void onComplete() {
      end.run();
    }
  }
}
