package dev.companion4j.eclipse.prefs;

import java.io.IOException;
import java.util.Arrays;
import org.eclipse.equinox.security.storage.ISecurePreferences;
import org.eclipse.equinox.security.storage.SecurePreferencesFactory;
import org.eclipse.equinox.security.storage.StorageException;
import org.eclipse.jface.preference.BooleanFieldEditor;
import org.eclipse.jface.preference.FieldEditorPreferencePage;
import org.eclipse.jface.preference.IntegerFieldEditor;
import org.eclipse.jface.preference.RadioGroupFieldEditor;
import org.eclipse.jface.preference.StringFieldEditor;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Text;
import org.eclipse.ui.IWorkbench;
import org.eclipse.ui.IWorkbenchPreferencePage;

/**
 * Window > Preferences > CLI Companion: the discovery files, the CLI cap, and the chat's path. The
 * daemon's token goes to Eclipse's secure storage, encrypted, or nowhere. On the UI thread.
 */
public final class CompanionPreferencePage extends FieldEditorPreferencePage
    implements IWorkbenchPreferencePage {
  /** The token field's {@code name} (widget data), by which tests find it. */
  static final String TOKEN_FIELD = "companion4j.prefs.daemonToken";

  private Text token;

  /** Set by "Forget Saved Token", carried out by OK/Apply. */
  private boolean forgetToken;

  public CompanionPreferencePage() {
    super(GRID);
    setDescription(
        "Companion for Qwen Code and Gemini CLI. Changing the discovery files or the cap restarts"
            + " the companion when applied: connected CLIs have to connect again (/ide enable).");
  }

  @Override
  public void init(IWorkbench workbench) {
    setPreferenceStore(CompanionPreferences.store());
  }

  @Override
  protected void createFieldEditors() {
    Composite parent = getFieldEditorParent();
    heading(parent, "Write discovery files for (the CLI finds this IDE by them):");
    addField(new BooleanFieldEditor(CompanionPreferences.QWEN, "Qwen Code", parent));
    addField(new BooleanFieldEditor(CompanionPreferences.GEMINI, "Gemini CLI", parent));
    IntegerFieldEditor cap =
        new IntegerFieldEditor(
            CompanionPreferences.MAX_CLIENTS, "Most CLIs connected at once:", parent);
    cap.setValidRange(1, CompanionPreferences.LIMIT_MAX_CLIENTS);
    addField(cap);

    heading(parent, "Chat view:");
    addField(
        new RadioGroupFieldEditor(
            ChatSettings.MODE,
            "Path",
            1,
            new String[][] {
              {"An ACP agent the chat starts", ChatSettings.Mode.ACP.key()},
              {"A qwen serve daemon at an address", ChatSettings.Mode.ATTACH.key()},
              {"qwen serve started for the project", ChatSettings.Mode.SPAWN.key()}
            },
            parent,
            true));
    addField(
        new StringFieldEditor(
            ChatSettings.AGENT, "ACP agent (qwen, gemini or a command line):", parent));
    addField(new StringFieldEditor(ChatSettings.URL, "Daemon address:", parent));
    addField(
        new StringFieldEditor(
            ChatSettings.QWEN_COMMAND, "qwen command (daemon started here):", parent));

    new Label(parent, SWT.NONE).setText("Daemon token:");
    token = new Text(parent, SWT.BORDER | SWT.PASSWORD);
    token.setData("name", TOKEN_FIELD);
    token.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
    token.setMessage(tokenSaved() ? "(saved; type to replace)" : "(none saved)");
    Button forget = new Button(parent, SWT.PUSH);
    forget.setText("Forget Saved Token");
    forget.setLayoutData(new GridData(SWT.BEGINNING, SWT.CENTER, false, false, 2, 1));
    forget.addListener(
        SWT.Selection,
        e -> {
          forgetToken = true;
          token.setText("");
          token.setMessage("(forgotten when applied)");
        });
    heading(parent, "The token is kept in Eclipse's secure storage, never in these preferences.");
  }

  @Override
  public boolean performOk() {
    try {
      saveToken();
    } catch (StorageException | IOException e) {
      // Fails closed: nothing of the token lands anywhere else.
      setErrorMessage("The daemon token was not saved: " + e.getMessage());
      return false;
    }
    return super.performOk();
  }

  private void saveToken() throws StorageException, IOException {
    String typed = token.getText();
    if (typed.isEmpty() && !forgetToken) {
      return;
    }
    ISecurePreferences root = SecurePreferencesFactory.getDefault();
    if (root == null) {
      throw new IOException("Eclipse's secure storage is not available");
    }
    ISecurePreferences node = root.node(ChatSettings.TOKEN_NODE);
    if (typed.isEmpty()) {
      node.remove(ChatSettings.TOKEN_KEY);
    } else {
      node.put(ChatSettings.TOKEN_KEY, typed, true);
    }
    node.flush();
    token.setText("");
    forgetToken = false;
    token.setMessage(typed.isEmpty() ? "(none saved)" : "(saved; type to replace)");
  }

  /** Whether a token is saved, without decrypting it (which might ask for a password). */
  private static boolean tokenSaved() {
    ISecurePreferences root = SecurePreferencesFactory.getDefault();
    return root != null
        && root.nodeExists(ChatSettings.TOKEN_NODE)
        && Arrays.asList(root.node(ChatSettings.TOKEN_NODE).keys())
            .contains(ChatSettings.TOKEN_KEY);
  }

  private static void heading(Composite parent, String text) {
    Label label = new Label(parent, SWT.WRAP);
    label.setText(text);
    label.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false, 2, 1));
  }
}
