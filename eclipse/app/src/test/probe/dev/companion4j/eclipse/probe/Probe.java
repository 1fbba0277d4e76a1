package dev.companion4j.eclipse.probe;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.core.commands.Command;
import org.eclipse.core.commands.ParameterizedCommand;
import org.eclipse.swt.SWT;
import org.eclipse.swt.custom.CLabel;
import org.eclipse.swt.custom.StyledText;
import org.eclipse.swt.graphics.Point;
import org.eclipse.swt.graphics.Rectangle;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Event;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.swt.widgets.Table;
import org.eclipse.swt.widgets.TableItem;
import org.eclipse.swt.widgets.Text;
import org.eclipse.swt.widgets.ToolBar;
import org.eclipse.swt.widgets.ToolItem;
import org.eclipse.swt.widgets.Widget;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.commands.ICommandService;
import org.eclipse.ui.handlers.IHandlerService;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;

/**
 * A test-only bundle: tells a test what the workbench's widgets show, and presses them, on request.
 * It serves one request per connection on a loopback port, which it writes with a random token to
 * the file named by {@code COMPANION4J_PROBE_FILE}; without that variable it does nothing.
 *
 * <p>A request is one line of tab-separated fields: the token, a command, its arguments. The answer
 * is {@code ok} or {@code error: why}, then the command's lines. Commands:
 *
 * <ul>
 *   <li>{@code widgets}: one line per visible control (and tool bar item) of every shell,
 *       tab-separated: name (its {@code "name"} data), class, text, tooltip, bounds on the screen
 *       {@code x,y,w,h}, and for a table its rows, for a check box its state ({@code
 *       checked}/{@code unchecked});
 *   <li>{@code press NAME-OR-TEXT}: presses the first visible control (tool bar item, table row)
 *       so named or with that text, as a click does: a button is selected (a check box toggles), a
 *       table row is opened, anything else gets a mouse down and up. Answered before the press
 *       runs, so a press that opens a modal dialog does not hold the answer;
 *   <li>{@code text NAME-OR-TEXT VALUE}: sets a text field's text, as typing does;
 *   <li>{@code exec COMMAND-ID [KEY=VALUE...]}: runs a workbench command with parameters, after
 *       the answer, e.g. {@code exec org.eclipse.ui.window.preferences
 *       preferencePageId=dev.companion4j.eclipse.prefs.page}.
 * </ul>
 *
 * Text in the answer is escaped: {@code \\t}, {@code \\n}, {@code \\r} and {@code \\\\}.
 */
public final class Probe implements BundleActivator {
  private static final long BOUND_SECONDS = 10;

  private ServerSocket server;

  @Override
  public void start(BundleContext context) throws IOException {
    String file = System.getenv("COMPANION4J_PROBE_FILE");
    if (file == null || file.isEmpty()) {
      return;
    }
    byte[] secret = new byte[24];
    new SecureRandom().nextBytes(secret);
    String token = HexFormat.of().formatHex(secret);
    server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
    Path target = Path.of(file);
    Path written = Files.createTempFile(target.getParent(), "probe", ".tmp");
    Files.writeString(written, server.getLocalPort() + " " + token + "\n");
    Files.move(written, target, StandardCopyOption.ATOMIC_MOVE);
    Thread serving = new Thread(() -> serve(token), "companion4j-probe");
    serving.setDaemon(true);
    serving.start();
  }

  @Override
  public void stop(BundleContext context) throws IOException {
    if (server != null) {
      server.close();
    }
  }

  private void serve(String token) {
    while (!server.isClosed()) {
      try (Socket s = server.accept();
          BufferedReader in =
              new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
          PrintWriter out =
              new PrintWriter(
                  new OutputStreamWriter(s.getOutputStream(), StandardCharsets.UTF_8))) {
        s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
        String line = in.readLine();
        String[] request = line == null ? new String[0] : line.split("\t", -1);
        if (request.length < 2 || !sameToken(request[0], token)) {
          out.print("error: no token\n");
        } else {
          out.print(answer(request));
        }
      } catch (IOException e) {
        if (!server.isClosed()) {
          System.err.println("probe: " + e);
        }
      }
    }
  }

  private static boolean sameToken(String given, String token) {
    return MessageDigest.isEqual(
        given.getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8));
  }

  private static String answer(String[] request) {
    if (!PlatformUI.isWorkbenchRunning()) {
      return "error: the workbench is not running\n";
    }
    Display display = PlatformUI.getWorkbench().getDisplay();
    CompletableFuture<String> done = new CompletableFuture<>();
    display.asyncExec(
        () -> {
          try {
            run(request, done);
          } catch (RuntimeException e) {
            done.complete("error: " + e + "\n");
          }
        });
    try {
      return done.get(BOUND_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      return "error: the UI thread did not answer within " + BOUND_SECONDS + " s\n";
    } catch (ExecutionException e) {
      return "error: " + e.getCause() + "\n";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "error: interrupted\n";
    }
  }

  /** On the UI thread: completes {@code done} with the answer, then does what comes after it. */
  private static void run(String[] r, CompletableFuture<String> done) {
    Display display = Display.getCurrent();
    switch (r[1]) {
      case "widgets" -> {
        StringBuilder out = new StringBuilder("ok\n");
        for (Shell shell : display.getShells()) {
          describe(shell, out);
        }
        done.complete(out.toString());
      }
      case "press" -> {
        Widget w = find(display, arg(r, 2));
        done.complete(w == null ? "error: nothing named " + r[2] + "\n" : "ok\n");
        if (w != null) {
          press(w);
        }
      }
      case "text" -> {
        Widget w = find(display, arg(r, 2));
        if (w instanceof Text t) {
          t.setText(arg(r, 3));
          done.complete("ok\n");
        } else {
          done.complete("error: no text field named " + r[2] + "\n");
        }
      }
      case "exec" -> {
        ICommandService commands = PlatformUI.getWorkbench().getService(ICommandService.class);
        Command command = commands.getCommand(arg(r, 2));
        Map<String, String> parameters = new HashMap<>();
        for (int i = 3; i < r.length; i++) {
          int eq = r[i].indexOf('=');
          parameters.put(r[i].substring(0, eq), r[i].substring(eq + 1));
        }
        ParameterizedCommand call = ParameterizedCommand.generateCommand(command, parameters);
        if (call == null) {
          done.complete("error: no command " + r[2] + " with " + parameters.keySet() + "\n");
          return;
        }
        done.complete("ok\n");
        try {
          PlatformUI.getWorkbench().getService(IHandlerService.class).executeCommand(call, null);
        } catch (Exception e) {
          System.err.println("probe: " + r[2] + " failed: " + e);
        }
      }
      default -> done.complete("error: unknown command " + r[1] + "\n");
    }
  }

  private static String arg(String[] r, int i) {
    if (i >= r.length) {
      throw new IllegalArgumentException(r[1] + " needs " + (i - 1) + " arguments");
    }
    return r[i];
  }

  private static void describe(Control c, StringBuilder out) {
    if (!c.isVisible()) {
      return;
    }
    Point at = c.toDisplay(0, 0);
    Point size = c.getSize();
    List<String> fields = new ArrayList<>();
    fields.add(c.getData("name") instanceof String n ? n : "");
    fields.add(c.getClass().getSimpleName());
    fields.add(text(c));
    fields.add(c.getToolTipText() == null ? "" : c.getToolTipText());
    fields.add(at.x + "," + at.y + "," + size.x + "," + size.y);
    if (c instanceof Table t) {
      List<String> rows = new ArrayList<>();
      for (TableItem item : t.getItems()) {
        rows.add(item.getText());
      }
      fields.add(String.join("\n", rows));
    } else if (c instanceof Button b && (b.getStyle() & (SWT.CHECK | SWT.RADIO)) != 0) {
      fields.add(b.getSelection() ? "checked" : "unchecked");
    }
    line(fields, out);
    if (c instanceof ToolBar bar) {
      for (ToolItem item : bar.getItems()) {
        Rectangle r = item.getBounds();
        Point itemAt = bar.toDisplay(r.x, r.y);
        line(
            List.of(
                item.getData("name") instanceof String n ? n : "",
                "ToolItem",
                item.getText(),
                item.getToolTipText() == null ? "" : item.getToolTipText(),
                itemAt.x + "," + itemAt.y + "," + r.width + "," + r.height),
            out);
      }
    }
    if (c instanceof Composite composite) {
      for (Control child : composite.getChildren()) {
        describe(child, out);
      }
    }
  }

  private static void line(List<String> fields, StringBuilder out) {
    out.append(String.join("\t", fields.stream().map(Probe::escape).toList())).append('\n');
  }

  private static String text(Control c) {
    if (c instanceof Shell s) {
      return s.getText();
    } else if (c instanceof Label l) {
      return l.getText();
    } else if (c instanceof CLabel l) {
      return l.getText() == null ? "" : l.getText();
    } else if (c instanceof Button b) {
      return b.getText();
    } else if (c instanceof Text t) {
      return t.getText();
    } else if (c instanceof StyledText t) {
      return t.getText();
    }
    return "";
  }

  private static Widget find(Display display, String nameOrText) {
    for (Shell shell : display.getShells()) {
      Widget w = find(shell, nameOrText);
      if (w != null) {
        return w;
      }
    }
    return null;
  }

  private static Widget find(Control c, String nameOrText) {
    if (!c.isVisible()) {
      return null;
    }
    if (nameOrText.equals(c.getData("name")) || nameOrText.equals(text(c).replace("&", ""))) {
      return c;
    }
    if (c instanceof ToolBar bar) {
      for (ToolItem item : bar.getItems()) {
        if (nameOrText.equals(item.getData("name")) || nameOrText.equals(item.getText())) {
          return item;
        }
      }
    }
    if (c instanceof Table t) {
      for (TableItem item : t.getItems()) {
        if (nameOrText.equals(item.getText())) {
          return item;
        }
      }
    }
    if (c instanceof Composite composite) {
      for (Control child : composite.getChildren()) {
        Widget w = find(child, nameOrText);
        if (w != null) {
          return w;
        }
      }
    }
    return null;
  }

  private static void press(Widget w) {
    if (w instanceof TableItem item) {
      Table table = item.getParent();
      table.setSelection(item);
      table.notifyListeners(SWT.Selection, itemEvent(item));
      table.notifyListeners(SWT.DefaultSelection, itemEvent(item));
    } else if (w instanceof ToolItem item) {
      Event e = new Event();
      e.widget = item;
      item.notifyListeners(SWT.Selection, e);
    } else if (w instanceof Button b) {
      if ((b.getStyle() & (SWT.CHECK | SWT.TOGGLE)) != 0) {
        b.setSelection(!b.getSelection());
      } else if ((b.getStyle() & SWT.RADIO) != 0) {
        b.setSelection(true);
      }
      b.notifyListeners(SWT.Selection, new Event());
    } else if (w instanceof Control c) {
      Point size = c.getSize();
      for (int type : new int[] {SWT.MouseDown, SWT.MouseUp}) {
        Event e = new Event();
        e.button = 1;
        e.x = size.x / 2;
        e.y = size.y / 2;
        c.notifyListeners(type, e);
      }
    }
  }

  private static Event itemEvent(TableItem item) {
    Event e = new Event();
    e.item = item;
    return e;
  }

  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r");
  }
}
