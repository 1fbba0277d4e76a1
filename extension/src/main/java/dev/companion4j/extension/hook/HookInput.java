package dev.companion4j.extension.hook;

import tools.jackson.databind.JsonNode;

/**
 * What a hook was told, in the runtime's words reduced to what the handlers use.
 *
 * @param sessionId the CLI session's id
 * @param cwd the CLI's working directory
 * @param toolName the tool about to run or just run, or empty
 * @param toolInput the tool's arguments, or a missing node
 * @param agentName the subagent concerned, or empty
 * @param agentAnswer what the subagent answered, or null before it did
 * @param stopHookActive whether a stop hook already blocked this subagent once
 */
record HookInput(
    String sessionId,
    String cwd,
    String toolName,
    JsonNode toolInput,
    String agentName,
    String agentAnswer,
    boolean stopHookActive) {}
