package dev.companion4j.engine;

import dev.companion4j.testkit.ApiBaseline;
import org.junit.jupiter.api.Test;

/**
 * The engine's exported API is the checked-in one, so that every change to it is a reviewed diff.
 */
class ApiBaselineTest {
  @Test
  void theExportedApiIsTheBaseline() {
    ApiBaseline.check(Companion.class.getModule(), "engine/api/engine.api", "engine");
  }
}
