package dev.companion4j.extension.hook;

import com.sun.net.httpserver.HttpServer;
import dev.companion4j.engine.CompanionStatus;
import dev.companion4j.engine.discovery.CompanionProof;
import dev.companion4j.extension.io.Directories;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

/**
 * A stand-in companion for training the hook's class cache: a loopback server answering the status
 * route and a discovery file in a scratch directory, so the session-start path runs end to end at
 * install without touching the user's own discovery files.
 */
final class TrainingCompanion implements AutoCloseable {
  private static final FileAttribute<?> OWNER_DIR =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

  private final Path dir;
  private final HttpServer server;

  private TrainingCompanion(Path dir, HttpServer server) {
    this.dir = dir;
    this.server = server;
  }

  static TrainingCompanion start() throws IOException {
    Path dir = Files.createTempDirectory("companion4j-train", OWNER_DIR);
    Path workspace = Directories.createOwnerOnly(dir.resolve("workspace"));
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    int port = server.getAddress().getPort();
    byte[] status =
        ("{\"ide\":{\"name\":\"train\",\"displayName\":\"Training\"},\"port\":"
                + port
                + ",\"workspaceRoots\":[\""
                + workspace
                + "\"],\"activeFile\":null,\"openFiles\":[],\"clients\":[],\"pendingDiffs\":[]}")
            .getBytes(StandardCharsets.UTF_8);
    server.createContext(
        CompanionStatus.PATH,
        exchange -> {
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, status.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(status);
          }
        });
    // Clients prove a companion before they send its token: the stand-in holds the file's.
    server.createContext(
        CompanionProof.PATH,
        exchange -> {
          String query = exchange.getRequestURI().getRawQuery();
          String nonce = query == null ? "" : query.replaceFirst("^nonce=", "");
          byte[] proof =
              (CompanionProof.isNonce(nonce)
                      ? "{\"proof\":\"" + CompanionProof.answer(nonce, "train") + "\"}"
                      : "{}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, proof.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(proof);
          }
        });
    server.start();
    Path ide = Directories.createOwnerOnly(dir.resolve("tmp/gemini/ide"));
    Path file =
        ide.resolve("gemini-ide-server-" + ProcessHandle.current().pid() + "-" + port + ".json");
    Files.writeString(
        file,
        "{\"port\":" + port + ",\"workspacePath\":\"" + workspace + "\",\"authToken\":\"train\"}",
        StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    return new TrainingCompanion(dir, server);
  }

  /** The environment a hook sees: discovery in the scratch directory, no companion started. */
  Map<String, String> environment() {
    return Map.of(
        "TMPDIR", dir.resolve("tmp").toString(),
        "QWEN_HOME", dir.resolve("qwen").toString(),
        "HOME", dir.toString(),
        "COMPANION4J_AUTOSTART", "false");
  }

  /** A SessionStart hook's stdin in the stand-in's workspace. */
  byte[] sessionStart() {
    return ("{\"hook_event_name\":\"SessionStart\",\"session_id\":\"train\",\"cwd\":\""
            + dir.resolve("workspace")
            + "\"}")
        .getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws IOException {
    server.stop(0);
    Directories.deleteRecursively(dir);
  }
}
