package dev.companion4j.engine.discovery;

/** The CLI families a companion can announce itself to; a host may turn either off. */
public enum DiscoveryTarget {
  /** Qwen Code: its current lock file, the spec's file and the legacy pid file. */
  QWEN_CODE,
  /** Gemini CLI: its discovery file. */
  GEMINI_CLI
}
