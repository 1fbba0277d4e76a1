package dev.companion4j.extension.hook;

/**
 * What a handler decided, before a runtime's dialect words it.
 *
 * @param decision the verdict; {@link Decision#NONE} lets things go on untouched
 * @param reason why, for the model or the user, or null
 * @param additionalContext text for the model's context, or null
 * @param systemMessage a notice for the user, or null
 */
record HookAnswer(
    Decision decision, String reason, String additionalContext, String systemMessage) {
  enum Decision {
    NONE,
    DENY,
    ASK,
    BLOCK
  }

  static final HookAnswer NOTHING = new HookAnswer(Decision.NONE, null, null, null);

  static HookAnswer context(String text) {
    return new HookAnswer(Decision.NONE, null, text, null);
  }

  static HookAnswer notice(String text) {
    return new HookAnswer(Decision.NONE, null, null, text);
  }
}
