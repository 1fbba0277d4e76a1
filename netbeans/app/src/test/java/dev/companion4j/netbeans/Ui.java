package dev.companion4j.netbeans;

import java.awt.Component;
import java.awt.Container;
import java.awt.Point;
import java.awt.Rectangle;
import java.awt.Robot;
import java.awt.Window;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import javax.swing.AbstractButton;
import javax.swing.JComponent;
import javax.swing.JEditorPane;
import javax.swing.JLabel;
import javax.swing.JRadioButton;
import javax.swing.JTextField;
import javax.swing.text.BadLocationException;
import javax.swing.text.Document;
import org.netbeans.junit.NbModuleSuite;
import org.netbeans.junit.NbTestCase;
import org.netbeans.spi.options.AdvancedOption;
import org.netbeans.spi.options.OptionsPanelController;
import org.openide.cookies.EditorCookie;
import org.openide.filesystems.FileUtil;
import org.openide.loaders.DataObject;
import org.openide.util.Lookup;
import org.openide.util.lookup.Lookups;
import org.openide.windows.TopComponent;
import org.openide.windows.WindowManager;

/**
 * The booted IDE as the tests use it: its configuration, the module's options panel, finding and
 * pressing named components, and screenshots of what the user sees.
 */
final class Ui {
  private static final Duration WAIT =
      Duration.ofSeconds(Long.getLong("companion4j.waitSeconds", 60));

  private Ui() {}

  /**
   * The whole test application (GUI, every cluster and module), booted once for {@code test}'s
   * methods.
   */
  static NbModuleSuite.Configuration platform(Class<? extends NbTestCase> test) {
    return NbModuleSuite.createConfiguration(test)
        .gui(true)
        .clusters(".*")
        .enableModules(".*")
        .enableClasspathModules(false)
        .honorAutoloadEager(true);
  }

  /** Tools > Options > Miscellaneous > CLI Companion, showing the saved settings; off the EDT. */
  static OptionsPanelController companionOptions() throws Exception {
    OptionsPanelController options =
        Lookups.forPath("OptionsDialog/Advanced").lookupAll(AdvancedOption.class).stream()
            .filter(o -> "CLI Companion".equals(o.getDisplayName()))
            .findFirst()
            .orElseThrow(
                () -> new AssertionError("the options panel is registered under Miscellaneous"))
            .create();
    Edt.call(
        () -> {
          options.getComponent(Lookup.EMPTY);
          options.update();
          return null;
        });
    return options;
  }

  /**
   * Picks the chat's ACP path with {@code agent} (a command) in the options and applies them, as
   * the user does in Tools > Options; off the EDT.
   */
  static void chooseAcpAgent(String agent) throws Exception {
    OptionsPanelController options = companionOptions();
    JComponent panel = Edt.call(() -> options.getComponent(Lookup.EMPTY));
    Edt.call(
        () -> {
          find(panel, JRadioButton.class, "companion4j.chatAcp").doClick();
          find(panel, JTextField.class, "companion4j.acpAgent").setText(agent);
          options.applyChanges();
          return null;
        });
  }

  /** Opens Window > Agent Chat and makes it active; off the EDT. */
  static TopComponent openChatWindow() throws Exception {
    return Edt.call(
        () -> {
          TopComponent window =
              WindowManager.getDefault().findTopComponent("Companion4JChatTopComponent");
          window.open();
          window.requestActive();
          return window;
        });
  }

  /** The component of {@code type} named {@code name} under {@code root}, or null; on the EDT. */
  static <T extends Component> T find(Container root, Class<T> type, String name) {
    return findFirst(root, type, c -> name.equals(c.getName()));
  }

  /**
   * The first component of {@code type} under {@code root} that {@code match} accepts, or null; on
   * the EDT.
   */
  static <T extends Component> T findFirst(
      Container root, Class<T> type, Predicate<? super T> match) {
    for (Component c : root.getComponents()) {
      if (type.isInstance(c) && match.test(type.cast(c))) {
        return type.cast(c);
      }
      if (c instanceof Container child) {
        T found = findFirst(child, type, match);
        if (found != null) {
          return found;
        }
      }
    }
    return null;
  }

  /**
   * Opens the chat window's Sessions... menu and picks the first session item {@code which}
   * accepts, once the menu shows one; off the EDT.
   */
  static void pickSession(Container chat, Predicate<AbstractButton> which, Duration wait)
      throws Exception {
    click(chat, "companion4j.chat.sessions");
    AbstractButton item =
        Await.until(
            wait,
            () ->
                Edt.call(
                    () ->
                        Stream.of(Window.getWindows())
                            .map(
                                w ->
                                    findFirst(
                                        w,
                                        AbstractButton.class,
                                        b ->
                                            b.getName() != null
                                                && b.getName()
                                                    .startsWith("companion4j.chat.session:")
                                                && which.test(b)))
                            .filter(b -> b != null)
                            .findFirst()
                            .orElse(null)),
            b -> b != null);
    Edt.call(
        () -> {
          item.doClick();
          return null;
        });
  }

  /** Presses the button named {@code name}, as a click would; off the EDT. */
  static void click(Container root, String name) throws Exception {
    AbstractButton button = Edt.call(() -> find(root, AbstractButton.class, name));
    if (button == null) {
      throw new AssertionError("no button " + name);
    }
    Edt.call(
        () -> {
          button.doClick();
          return null;
        });
  }

  /**
   * Captures {@code area} of {@code window} (all of it when null) once the picture stops changing,
   * into target/screenshots, and into docs/img when asked to update the screenshots.
   */
  static void screenshot(Window window, Rectangle area, String name) throws Exception {
    Rectangle onScreen =
        Edt.call(
            () -> {
              Point origin = window.getLocationOnScreen();
              Rectangle r =
                  area == null
                      ? new Rectangle(0, 0, window.getWidth(), window.getHeight())
                      : new Rectangle(area);
              r.translate(origin.x, origin.y);
              return r;
            });
    Robot robot = new Robot();
    AtomicReference<BufferedImage> last = new AtomicReference<>();
    BufferedImage image =
        Await.until(
            WAIT,
            Duration.ofMillis(300),
            () -> {
              Edt.call(() -> null);
              BufferedImage now = robot.createScreenCapture(onScreen);
              BufferedImage before = last.getAndSet(now);
              return before != null && samePixels(before, now) ? now : null;
            },
            img -> img != null);
    Path dir = Path.of(System.getProperty("companion4j.buildDir")).resolve("screenshots");
    Files.createDirectories(dir);
    ImageIO.write(image, "png", dir.resolve(name).toFile());
    String docs = System.getProperty("companion4j.docsImages");
    if (docs != null && Boolean.getBoolean("companion4j.updateScreenshots")) {
      Files.createDirectories(Path.of(docs));
      ImageIO.write(image, "png", Path.of(docs, name).toFile());
    }
  }

  /** The editable side of a diff window once it shows {@code text}. */
  static JEditorPane awaitEditableRightSide(TopComponent window, String text) throws Exception {
    return Await.until(
        WAIT,
        () ->
            Edt.call(
                () ->
                    panes(window).stream()
                        .filter(p -> p.isEditable() && p.isShowing() && text.equals(textOf(p)))
                        .findFirst()
                        .orElse(null)),
        p -> p != null);
  }

  /** The document's text; JEditorPane.getText() would convert line ends to the file's. */
  static String textOf(JEditorPane pane) {
    Document doc = pane.getDocument();
    try {
      return doc.getText(0, doc.getLength());
    } catch (BadLocationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The text panes under {@code root}. */
  static List<JEditorPane> panes(Container root) {
    List<JEditorPane> found = new ArrayList<>();
    for (Component c : root.getComponents()) {
      if (c instanceof JEditorPane pane) {
        found.add(pane);
      } else if (c instanceof Container child) {
        found.addAll(panes(child));
      }
    }
    return found;
  }

  /** The first permission card the chat window {@code chat} shows, or null; on the EDT. */
  static JComponent permissionCard(Container chat) {
    return findFirst(
        chat,
        JComponent.class,
        c -> c.getName() != null && c.getName().startsWith("companion4j.chat.permission:"));
  }

  /** The first permission card of the chat window, once one shows. */
  static JComponent awaitPermissionCard(Container chat, Duration wait) throws Exception {
    try {
      return Await.until(wait, () -> Edt.call(() -> permissionCard(chat)), c -> c != null);
    } catch (AssertionError e) {
      throw new AssertionError(
          "no permission request shows; the chat says "
              + Edt.call(() -> find(chat, JLabel.class, "companion4j.chat.state").getText())
              + " and shows:\n"
              + Edt.call(() -> textOf(find(chat, JEditorPane.class, "companion4j.chat.log"))),
          e);
    }
  }

  /** Presses the card's option of the ACP kind {@code kind}, e.g. {@code allow_once}. */
  static void clickOption(JComponent card, String kind) throws Exception {
    AbstractButton option =
        Edt.call(
            () ->
                findFirst(
                    card,
                    AbstractButton.class,
                    b ->
                        b.getName() != null
                            && b.getName().startsWith("companion4j.chat.option:")
                            && kind.equals(b.getClientProperty("kind"))));
    NbTestCase.assertNotNull("an option of kind " + kind, option);
    Edt.call(
        () -> {
          option.doClick();
          return null;
        });
  }

  /** Opens {@code file} in NetBeans' editor and returns its pane once it shows. */
  static JEditorPane openInEditor(Path file) throws Exception {
    EditorCookie editor =
        DataObject.find(FileUtil.toFileObject(file.toFile()))
            .getLookup()
            .lookup(EditorCookie.class);
    Edt.call(
        () -> {
          editor.open();
          return null;
        });
    return Await.until(
        WAIT,
        () ->
            Edt.call(
                () -> {
                  JEditorPane[] panes = editor.getOpenedPanes();
                  return panes == null || panes.length == 0 ? null : panes[0];
                }),
        p -> p != null);
  }

  /** Makes {@code dir} an empty folder the test project factory takes for a project. */
  static void freshProjectFolder(Path dir) throws IOException {
    deleteRecursively(dir);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(TestProjectFactory.MARKER), "");
  }

  /** Deletes {@code dir} and all in it, if it exists. */
  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
        Files.delete(p);
      }
    }
  }

  private static boolean samePixels(BufferedImage a, BufferedImage b) {
    int w = a.getWidth();
    int h = a.getHeight();
    return Arrays.equals(a.getRGB(0, 0, w, h, null, 0, w), b.getRGB(0, 0, w, h, null, 0, w));
  }
}
