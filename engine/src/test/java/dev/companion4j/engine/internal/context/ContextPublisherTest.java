package dev.companion4j.engine.internal.context;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.companion4j.engine.IdeContext;
import dev.companion4j.engine.internal.loop.FakeScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The debounce of context updates, on a fake clock. */
class ContextPublisherTest {
  private static final Duration DEBOUNCE = Duration.ofMillis(50);
  private static final Duration MAX_DELAY = Duration.ofMillis(250);

  private final FakeScheduler clock = new FakeScheduler();
  private final List<IdeContext> published = new ArrayList<>();
  private final List<Long> publishedAtMillis = new ArrayList<>();
  private final ContextPublisher publisher =
      new ContextPublisher(
          DEBOUNCE,
          MAX_DELAY,
          clock,
          c -> {
            published.add(c);
            publishedAtMillis.add(clock.nanoTime() / 1_000_000);
          });

  private static IdeContext context(String activePath) {
    return new IdeContext(List.of(new IdeContext.OpenFile(activePath, 1, true, null, null)), true);
  }

  private void advanceMillis(long millis) {
    clock.advance(Duration.ofMillis(millis));
  }

  @Test
  void aBurstOfChangesBecomesOneUpdateOfTheLastOneAfterItSettles() {
    publisher.changed(context("/a"));
    advanceMillis(20);
    publisher.changed(context("/b"));
    advanceMillis(20);
    publisher.changed(context("/c"));
    advanceMillis(49);

    assertThat(published).isEmpty();

    advanceMillis(1);

    assertThat(published).containsExactly(context("/c"));
    assertThat(publishedAtMillis).containsExactly(90L);
  }

  @Test
  void changesThatNeverSettleStillGoOutAtTheMaximumDelay() {
    for (int i = 0; i < 60; i++) {
      publisher.changed(context("/f" + i));
      advanceMillis(10);
    }

    // Each window closes 250 ms after its first change, with the newest context of that moment.
    assertThat(publishedAtMillis).containsExactly(250L, 500L);
    assertThat(published).containsExactly(context("/f24"), context("/f49"));

    advanceMillis(50);

    assertThat(published).last().isEqualTo(context("/f59"));
  }

  @Test
  void aContextEqualToTheLastPublishedIsNotPublishedAgain() {
    publisher.changed(context("/a"));
    advanceMillis(100);
    publisher.changed(context("/b"));
    publisher.changed(context("/a"));
    advanceMillis(100);

    assertThat(published).containsExactly(context("/a"));
    assertThat(clock.pending()).isZero();
  }

  @Test
  void aChangeAfterAnUpdateStartsANewWindow() {
    publisher.changed(context("/a"));
    advanceMillis(300);
    publisher.changed(context("/b"));
    advanceMillis(50);

    assertThat(published).containsExactly(context("/a"), context("/b"));
    assertThat(publishedAtMillis).containsExactly(50L, 350L);
  }

  @Test
  void aMaximumShorterThanTheDebounceIsRefused() {
    assertThatThrownBy(() -> new ContextPublisher(MAX_DELAY, DEBOUNCE, clock, c -> {}))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
