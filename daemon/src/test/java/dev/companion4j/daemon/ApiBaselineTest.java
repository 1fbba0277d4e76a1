package dev.companion4j.daemon;

import dev.companion4j.testkit.ApiBaseline;
import org.junit.jupiter.api.Test;

/**
 * The daemon client's exported API is the checked-in one, so that every change to it is a reviewed
 * diff.
 */
class ApiBaselineTest {
  @Test
  void theExportedApiIsTheBaseline() {
    ApiBaseline.check(DaemonClient.class.getModule(), "daemon/api/daemon.api", "daemon");
  }
}
