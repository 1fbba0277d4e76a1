package dev.companion4j.eclipse;

import java.awt.AWTException;
import java.awt.Rectangle;
import java.awt.Robot;
import java.awt.Toolkit;
import java.awt.event.InputEvent;
import java.awt.event.KeyEvent;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;

/**
 * A user at the X display Eclipse runs on: the mouse and the keyboard through the X server's test
 * extension, as a real one would press them. It runs in a JVM of its own, started for each batch of
 * steps, since a JVM's AWT talks to the display named when it started.
 *
 * <p>Steps: {@code click X Y}, {@code move X Y} (no click), {@code keys ctrl+alt+A} (modifiers and
 * one key), {@code type lowercase words}, {@code shot FILE.png}.
 */
final class ScreenUser {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final Map<String, Integer> KEYS =
      Map.ofEntries(
          Map.entry("ctrl", KeyEvent.VK_CONTROL),
          Map.entry("alt", KeyEvent.VK_ALT),
          Map.entry("shift", KeyEvent.VK_SHIFT),
          Map.entry("HOME", KeyEvent.VK_HOME),
          Map.entry("END", KeyEvent.VK_END),
          Map.entry("RIGHT", KeyEvent.VK_RIGHT),
          Map.entry("ENTER", KeyEvent.VK_ENTER),
          Map.entry("F", KeyEvent.VK_F),
          Map.entry("P", KeyEvent.VK_P),
          Map.entry("W", KeyEvent.VK_W),
          Map.entry("A", KeyEvent.VK_A),
          Map.entry("R", KeyEvent.VK_R));

  private ScreenUser() {}

  /** Runs the steps on {@code display} (e.g. {@code :3}) and waits for them to be done. */
  static void act(String display, String... steps) throws IOException, InterruptedException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Path classes;
    try {
      classes =
          Path.of(ScreenUser.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    List<String> command = new ArrayList<>(List.of(java.toString(), "-cp", classes.toString()));
    command.add(ScreenUser.class.getName());
    command.addAll(List.of(steps));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("DISPLAY", display);
    Process p = pb.start();
    if (!p.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("the screen user did not finish within " + BOUND);
    }
    if (p.exitValue() != 0) {
      throw new AssertionError(
          "the screen user failed: "
              + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  public static void main(String[] args) throws AWTException, IOException {
    Robot robot = new Robot();
    robot.setAutoDelay(40);
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "click" -> {
          robot.mouseMove(Integer.parseInt(args[++i]), Integer.parseInt(args[++i]));
          robot.mousePress(InputEvent.BUTTON1_DOWN_MASK);
          robot.mouseRelease(InputEvent.BUTTON1_DOWN_MASK);
        }
        case "move" -> robot.mouseMove(Integer.parseInt(args[++i]), Integer.parseInt(args[++i]));
        case "keys" -> {
          List<Integer> codes = new ArrayList<>();
          for (String k : args[++i].split("\\+")) {
            codes.add(KEYS.getOrDefault(k, KeyEvent.getExtendedKeyCodeForChar(k.charAt(0))));
          }
          codes.forEach(robot::keyPress);
          for (int j = codes.size() - 1; j >= 0; j--) {
            robot.keyRelease(codes.get(j));
          }
        }
        case "type" -> {
          for (char c : args[++i].toCharArray()) {
            int code = KeyEvent.getExtendedKeyCodeForChar(c);
            robot.keyPress(code);
            robot.keyRelease(code);
          }
        }
        case "shot" -> {
          Rectangle screen = new Rectangle(Toolkit.getDefaultToolkit().getScreenSize());
          ImageIO.write(robot.createScreenCapture(screen), "png", Path.of(args[++i]).toFile());
        }
        default -> throw new IllegalArgumentException("unknown step " + args[i]);
      }
      robot.waitForIdle();
    }
  }
}
