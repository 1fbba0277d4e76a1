package dev.companion4j.acp.internal;

import com.agentclientprotocol.sdk.error.AcpProtocolException;
import com.agentclientprotocol.sdk.spec.AcpSchema;
import dev.companion4j.acp.WorkspaceFiles;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import reactor.core.publisher.Mono;

/**
 * The agent's {@code fs/read_text_file} and {@code fs/write_text_file}: confined to the workspace
 * roots, then handed to the caller's {@link WorkspaceFiles}.
 */
public final class ClientFiles {
  /** ACP's resource-not-found: the agent then knows the file is missing, not unreadable. */
  private static final int RESOURCE_NOT_FOUND = -32002;

  private final WorkspaceRoots roots;
  private final WorkspaceFiles files;

  public ClientFiles(WorkspaceRoots roots, WorkspaceFiles files) {
    this.roots = roots;
    this.files = files;
  }

  /** Blocks for the caller's read: run off the reader thread. */
  public AcpSchema.ReadTextFileResponse read(AcpSchema.ReadTextFileRequest r) throws IOException {
    String text;
    try {
      text = files.read(roots.confine(r.path()));
    } catch (NoSuchFileException e) {
      throw new AcpProtocolException(RESOURCE_NOT_FOUND, "Resource not found: " + r.path());
    }
    return new AcpSchema.ReadTextFileResponse(lines(text, r.line(), r.limit()));
  }

  /** Answered once the caller's files wrote it, which may wait for the user's review. */
  public Mono<AcpSchema.WriteTextFileResponse> write(AcpSchema.WriteTextFileRequest r) {
    return Mono.fromCompletionStage(files.write(roots.confine(r.path()), r.content()))
        .thenReturn(new AcpSchema.WriteTextFileResponse());
  }

  /** Lines {@code line} (1-based) on, at most {@code limit} of them, as ACP reads ask. */
  static String lines(String text, Integer line, Integer limit) {
    if (line == null && limit == null) {
      return text;
    }
    String[] all = text.split("(?<=\n)", -1);
    int from = Math.max(0, (line == null ? 1 : line) - 1);
    int to = limit == null ? all.length : (int) Math.min(all.length, (long) from + limit);
    StringBuilder out = new StringBuilder();
    for (int i = from; i < to; i++) {
      out.append(all[i]);
    }
    return out.toString();
  }
}
