package dev.companion4j.daemon;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** How much the agent may do without asking, as the daemon names the modes. */
public enum ApprovalMode {
  PLAN("plan"),
  /** Ask before edits and commands. */
  DEFAULT("default"),
  AUTO_EDIT("auto-edit"),
  /** The daemon's own default in 0.24.4: it decides per call, and applies workspace edits. */
  AUTO("auto"),
  YOLO("yolo");

  private final String wire;

  ApprovalMode(String wire) {
    this.wire = wire;
  }

  /** The name on the wire. */
  public String wireName() {
    return wire;
  }

  /** Parses a wire name; the message lists the accepted names. */
  public static ApprovalMode parse(String name) {
    String wanted = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
    for (ApprovalMode mode : values()) {
      if (mode.wire.equals(wanted)) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        "unknown approval mode '"
            + name
            + "'; use one of "
            + Arrays.stream(values())
                .map(ApprovalMode::wireName)
                .collect(Collectors.joining(", ")));
  }
}
