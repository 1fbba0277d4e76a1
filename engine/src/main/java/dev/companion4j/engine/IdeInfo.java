package dev.companion4j.engine;

import java.util.Objects;

/**
 * How the CLIs name the editor: {@code name} is a short lower-case id ({@code netbeans}), {@code
 * displayName} what the user reads ({@code Apache NetBeans}). Both CLIs only recognise a
 * non-VS-Code editor when both are present in the discovery file.
 */
public record IdeInfo(String name, String displayName) {
  public IdeInfo {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(displayName, "displayName");
    if (name.isBlank() || displayName.isBlank()) {
      throw new IllegalArgumentException("IDE name and display name must not be blank");
    }
  }
}
