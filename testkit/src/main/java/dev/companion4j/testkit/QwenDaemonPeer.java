package dev.companion4j.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * A {@link QwenDaemon} with its {@link FakeModelServer}, in a process of its own, for tests whose
 * class path cannot hold them (a booted NetBeans platform hides plain jars from its tests).
 *
 * <pre>
 *   QWEN_SERVER_TOKEN=… java -cp … dev.companion4j.testkit.QwenDaemonPeer WORKSPACE
 * </pre>
 *
 * <p>Once the daemon listens it prints {@code {"url":…,"workspace":…,"settings":…}} on a line, the
 * settings being a {@code settings.json} for another Qwen Code on the same fake model (its key in
 * {@code FAKE_MODEL_KEY}, {@code sk-fake-test-key}). Then each line on stdin is a command, answered
 * by a line {@code done COMMAND}: {@code kill} (SIGKILL to the daemon and its agents) and {@code
 * restart} (the same port and workspace). The end of stdin stops both servers and the process.
 */
public final class QwenDaemonPeer {
  private QwenDaemonPeer() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: QwenDaemonPeer WORKSPACE (token in $QWEN_SERVER_TOKEN, optional)");
      System.exit(2);
    }
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    String token = System.getenv("QWEN_SERVER_TOKEN");
    try (FakeModelServer model = new FakeModelServer();
        QwenDaemon daemon =
            QwenDaemon.startIn(
                Path.of(args[0]), model, token == null || token.isBlank() ? null : token)) {
      out.println(
          JsonMapper.shared()
              .writeValueAsString(
                  Map.of(
                      "url",
                      daemon.url(),
                      "workspace",
                      daemon.workspace().toString(),
                      "settings",
                      QwenDaemon.settings(model.baseUrl()))));
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String command;
      while ((command = in.readLine()) != null) {
        switch (command.strip()) {
          case "kill" -> daemon.kill();
          case "restart" -> daemon.restart();
          default -> {
            System.err.println("unknown command: " + command + " (kill, restart)");
            continue;
          }
        }
        out.println("done " + command.strip());
      }
    }
  }
}
