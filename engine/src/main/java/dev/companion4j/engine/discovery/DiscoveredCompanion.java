package dev.companion4j.engine.discovery;

import java.nio.file.Path;
import java.util.Optional;

/**
 * A discovery file found on disk, as {@code companion4j status} lists it. The token is read but
 * deliberately not kept.
 *
 * @param file the file
 * @param kind which generation it belongs to
 * @param port the companion's port
 * @param workspacePath the workspace roots, joined with the path separator
 * @param ideName the IDE's display name, if the file names one
 * @param pid the process that owns the companion, if known
 * @param alive whether that process is running and the server on its port proves it holds the
 *     file's token ({@link CompanionProof})
 */
public record DiscoveredCompanion(
    Path file,
    DiscoveryFileKind kind,
    int port,
    String workspacePath,
    Optional<String> ideName,
    Optional<Long> pid,
    boolean alive) {}
