package dev.companion4j.extension.hook;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.json.JsonMapper;

/**
 * The corpus of command lines in {@code shell-corpus.json}: destructive spellings the policy
 * refuses or asks about, and harmless look-alikes it lets through.
 */
public final class ShellCorpus {
  private ShellCorpus() {}

  /** The command lines of one decision: {@code deny}, {@code ask} or {@code allow}. */
  public static List<String> of(String decision) {
    try (InputStream in = ShellCorpus.class.getResourceAsStream("shell-corpus.json")) {
      List<String> commands = new ArrayList<>();
      JsonMapper.shared().readTree(in).path(decision).forEach(c -> commands.add(c.asString()));
      if (commands.isEmpty()) {
        throw new IllegalStateException("no '" + decision + "' commands in the corpus");
      }
      return commands;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
