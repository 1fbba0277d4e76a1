package dev.companion4j.extension.hook;

/**
 * What a hook was told, in the runtime's words reduced to what the handlers use.
 *
 * @param event the CLI's name for the event
 * @param sessionId the CLI session's id
 * @param cwd the CLI's working directory
 * @param command the shell command about to run, or empty
 * @param agentName the subagent concerned, or empty
 * @param agentAnswer what the subagent answered, or null before it did
 * @param stopHookActive whether a stop hook already blocked this subagent once
 */
record HookInput(
    String event,
    String sessionId,
    String cwd,
    String command,
    String agentName,
    String agentAnswer,
    boolean stopHookActive) {}
