package dev.companion4j.daemon;

/**
 * A session in a workspace's catalog ({@code GET /workspace/:cwd/sessions}).
 *
 * @param displayName the session's title, or {@code null}
 * @param createdAt ISO-8601 creation time, or {@code null}
 * @param updatedAt ISO-8601 time of the last change, or {@code null}
 * @param clientCount clients attached now ({@code 0} for sessions that are not live)
 * @param activePrompt whether a prompt is running
 */
public record SessionSummary(
    String sessionId,
    String workspaceCwd,
    String displayName,
    String createdAt,
    String updatedAt,
    int clientCount,
    boolean activePrompt) {}
