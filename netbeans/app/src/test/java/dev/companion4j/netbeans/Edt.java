package dev.companion4j.netbeans;

import java.awt.EventQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

/** Runs test code on the EDT, where Swing and the editor want it, and hands back its result. */
final class Edt {
  private Edt() {}

  static <T> T call(Callable<T> task) throws Exception {
    AtomicReference<T> result = new AtomicReference<>();
    AtomicReference<Exception> failure = new AtomicReference<>();
    EventQueue.invokeAndWait(
        () -> {
          try {
            result.set(task.call());
          } catch (Exception e) {
            failure.set(e);
          }
        });
    if (failure.get() != null) {
      throw failure.get();
    }
    return result.get();
  }
}
