package dev.companion4j.engine.internal.io;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reads files that someone else may have planted or swapped, on a pool of its own: at most a given
 * number of bytes, never through a link, and within a deadline. A file that became a FIFO after its
 * checks blocks in {@code open()}; that costs one of this pool's threads, never the caller's.
 */
public final class BoundedReads {

  /** The file holds more than the cap allowed. */
  public static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge(Path file, int maxBytes) {
      super(file + " is larger than " + maxBytes + " bytes");
    }
  }

  private static final int QUEUED = 0;
  private static final int RUNNING = 1;
  private static final int DONE = 2;
  private static final int STALLED = 3;
  private static final int ABANDONED = 4;

  private final ThreadPoolExecutor readers;
  private final int maxThreads;

  /** Reads past their deadline whose thread is still blocked. */
  private final AtomicInteger stalled = new AtomicInteger();

  /**
   * @param threadName the name of the pool's threads
   * @param maxThreads how many reads run at once; more wait their turn within their deadline. Once
   *     this many threads are held by stalled reads, further reads are refused at once
   */
  public BoundedReads(String threadName, int maxThreads) {
    this.maxThreads = maxThreads;
    // Unbounded, a read takes an idle thread or starts one: a pool whose core size is unbounded
    // would start a thread for every read, twenty CLIs connecting at once twenty threads.
    boolean unbounded = maxThreads == Integer.MAX_VALUE;
    readers =
        new ThreadPoolExecutor(
            unbounded ? 0 : maxThreads,
            maxThreads,
            30,
            TimeUnit.SECONDS,
            unbounded ? new SynchronousQueue<>() : new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
    if (!unbounded) {
      readers.allowCoreThreadTimeOut(true);
    }
  }

  /**
   * The whole of {@code file}, opened without following a link.
   *
   * @throws TooLarge when it holds more than {@code maxBytes}
   * @throws IOException when it cannot be read, is not read within {@code deadline}, or every
   *     thread of the pool is taken by reads still stalled
   */
  public byte[] read(Path file, int maxBytes, Duration deadline) throws IOException {
    if (stalled.get() >= maxThreads) {
      throw new IOException("earlier reads are still stalled");
    }
    AtomicInteger state = new AtomicInteger(QUEUED);
    Future<byte[]> read =
        readers.submit(
            () -> {
              if (!state.compareAndSet(QUEUED, RUNNING)) {
                throw new IOException("not read within " + deadline.toMillis() + " ms");
              }
              try {
                return readAtMost(file, maxBytes);
              } finally {
                if (!state.compareAndSet(RUNNING, DONE)) {
                  stalled.decrementAndGet();
                }
              }
            });
    try {
      return read.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      // A read that never started costs nothing; one that started may hold its thread for good.
      if (!state.compareAndSet(QUEUED, ABANDONED) && state.compareAndSet(RUNNING, STALLED)) {
        stalled.incrementAndGet();
      }
      read.cancel(true);
      throw new IOException("not read within " + deadline.toMillis() + " ms");
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } catch (InterruptedException e) {
      read.cancel(true);
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted reading " + file);
    }
  }

  private static byte[] readAtMost(Path file, int maxBytes) throws IOException {
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      byte[] bytes = in.readNBytes(maxBytes + 1);
      if (bytes.length > maxBytes) {
        throw new TooLarge(file, maxBytes);
      }
      return bytes;
    }
  }
}
