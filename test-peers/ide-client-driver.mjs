#!/usr/bin/env node
// ide-client-driver.mjs: drives the real IdeClient bundled in Qwen Code /
// Gemini CLI so that Java end-to-end tests talk to the exact code users run.
//
//   node ide-client-driver.mjs --cli qwen|gemini [--packages DIR]
//                 DIR/node_modules holds the CLI (default: this directory);
//                 exit 64: bad args, 2: IdeClient not loadable
// The test controls cwd (must lie inside the companion's workspacePath) and
// the environment: HOME, TMPDIR (gemini discovery dir = $TMPDIR/gemini/ide),
// QWEN_HOME (qwen lock dir = $QWEN_HOME/ide), optionally
// QWEN_CODE_IDE_SERVER_PORT / GEMINI_CLI_IDE_SERVER_PORT, and for gemini
// SSH_CONNECTION (any value) because /.dockerenv exists on the test machines.
// IDE_CLIENT_DRIVER_MODULE=/abs/chunk.js overrides the chunk lookup
// (lib/resolve-ide-client.mjs follows the package's import graph).
//
// stdin : one JSON command per line  {"id":N,"op":"...", ...args}
// stdout: one JSON line per command  {"id":N,"ok":true,...} | {"id":N,"ok":false,"error":"..."}
//         (id:null for unparseable lines), plus events
//           {"event":"context","context":<IdeContext as stored by the CLI | null>}
//           {"event":"status","status":"connecting|connected|disconnected","details":<string|null>}
//         Nothing else is written to stdout; logs (including the CLIs' own
//         console output) go to stderr.
// Ops (run concurrently; responses may come out of order):
//   info                         -> {cli,package,version,module,node,pid,cwd}
//   connect | status | disconnect -> {status,details,ideName,ideDisplayName,diffingEnabled}
//   context                      -> {context}
//   openDiff {filePath,newContent} -> answered when the diff resolves:
//                                   {status:"accepted",content} | {status:"rejected"},
//                                   both with calledAt and resolvedAt: wall-clock
//                                   epoch milliseconds (fractional) of the call to
//                                   IdeClient.openDiff and of its promise resolving,
//                                   for benchmarks that time the editor's side
//   closeDiff {filePath,suppressNotification?} -> {content: string|null}
//   resolveDiffFromCli {filePath,outcome:"accepted"|"rejected"} -> {}
//                                   (what the CLI does when the user answers in
//                                   the terminal: closeDiff suppressNotification:true)
//   exit                         -> {"id":N,"ok":true}, then exit 0.
// stdin EOF: answers in-flight ops (not pending openDiffs; max 5 s), exits 0.
//
// Differences between the two CLIs (qwen 0.24.4 / gemini 0.61.0):
// - Discovery: qwen reads $QWEN_HOME/ide/<port>.lock (else ~/.qwen/ide); with
//   QWEN_CODE_IDE_SERVER_PORT set it reads that lock first, else scans *.lock
//   newest first and takes the first whose workspace contains the cwd; a lock
//   whose workspace does not match is ignored entirely (ideInfo unseen).
//   gemini scans <os.tmpdir()>/gemini/ide/gemini-ide-server-<pid>-<port>.json
//   (files owned by this uid only) and, if none matches the cwd, still picks
//   one (env port, else first) so it reports "Directory mismatch ...".
// - Host: gemini uses host.docker.internal (no 127.0.0.1 fallback) when
//   /.dockerenv or /run/.containerenv exists and none of SSH_CONNECTION,
//   REMOTE_CONTAINERS, VSCODE_REMOTE_CONTAINERS_SESSION is set. qwen tries
//   127.0.0.1 first and host.docker.internal only as a fallback.
// - IDE pid: gemini honours GEMINI_CLI_IDE_PID; otherwise both walk the
//   process tree with `ps` (used for sorting / legacy file names only).
// - Logging: gemini's debug logger prints to console (redirected to stderr
//   here); qwen's only writes to a session debug file (silent here).
// - The IdeClient is a per-process singleton that detects the IDE (from the
//   discovery file's ideInfo) once, on first use: the discovery file must
//   exist before the first connect/status/openDiff/closeDiff/disconnect op.
// - setState() ignores disconnected->disconnected, so a failure before the
//   "connecting" step leaves details at "IDE integration is currently
//   disabled. To enable it, run /ide enable." (both: no usable discovery
//   file; qwen also: workspace mismatch). On a 401 qwen reports "IDE
//   connection error. ...\nStreamable HTTP error: Error POSTing to endpoint: ",
//   gemini "Failed to connect to IDE companion extension in <displayName>. ...".
// - MCP protocol version requested: qwen 2025-11-25, gemini 2025-06-18.
//   Gemini 0.61.0's IdeClient loads and works on Node 20.

import * as readline from 'node:readline';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadIdeClient } from './lib/resolve-ide-client.mjs';

// ---- keep stdout for the protocol only ------------------------------------
const stdoutWrite = process.stdout.write.bind(process.stdout);
const stderrWrite = process.stderr.write.bind(process.stderr);
process.stdout.write = (chunk, encoding, cb) => stderrWrite(chunk, encoding, cb);
for (const m of ['log', 'info', 'debug', 'trace', 'dir', 'table']) {
  // eslint-disable-next-line no-console
  console[m] = (...args) => console.error(...args);
}

function emit(obj) {
  stdoutWrite(JSON.stringify(obj) + '\n');
}
function log(...args) {
  console.error('[ide-client-driver]', ...args);
}

// The CLIs' openDiff does `promise.finally(release)` and leaves the derived
// promise unhandled when the diff request fails; the CLIs install global
// handlers, so must we (Node would otherwise terminate the process).
process.on('unhandledRejection', (reason) => {
  log('unhandled rejection (ignored):', reason instanceof Error ? reason.message : reason);
});
process.on('uncaughtException', (err) => {
  log('uncaught exception (ignored):', err?.stack ?? err);
});

// ---- arguments ---------------------------------------------------------------
function option(argv, name) {
  const i = argv.indexOf(name);
  const eq = argv.find((a) => a.startsWith(name + '='));
  return eq ? eq.slice(name.length + 1) : i >= 0 ? argv[i + 1] : undefined;
}
const cli = option(process.argv.slice(2), '--cli');
if (cli !== 'qwen' && cli !== 'gemini') {
  log('usage: node ide-client-driver.mjs --cli qwen|gemini [--packages DIR]');
  process.exit(64);
}

// ---- load the CLI's own IdeClient -------------------------------------------
const packagesDir = path.resolve(
  option(process.argv.slice(2), '--packages') ?? path.dirname(fileURLToPath(import.meta.url)),
);
let loaded;
try {
  loaded = await loadIdeClient(cli, packagesDir);
} catch (err) {
  log('cannot load IdeClient:', err?.stack ?? err);
  process.exit(2);
}
const { IdeClient, ideContextStore } = loaded;
log(`${loaded.pkg}@${loaded.version}: IdeClient from ${loaded.file} (node ${process.version})`);

ideContextStore.subscribe((context) => {
  emit({ event: 'context', context: context ?? null });
});

let clientPromise;
function getClient() {
  if (!clientPromise) {
    clientPromise = IdeClient.getInstance().then((client) => {
      client.addStatusChangeListener((state) => {
        emit({ event: 'status', status: state.status, details: state.details ?? null });
      });
      return client;
    });
  }
  return clientPromise;
}

function statusOf(client) {
  const state = client.getConnectionStatus();
  const ide = client.getCurrentIde?.();
  return {
    status: state.status,
    details: state.details ?? null,
    ideName: ide?.name ?? null,
    ideDisplayName: client.getDetectedIdeDisplayName() ?? null,
    diffingEnabled: client.isDiffingEnabled(),
  };
}

// Sub-millisecond wall-clock time, comparable with an editor's own clock on the same machine.
function wallClock() {
  return performance.timeOrigin + performance.now();
}

function requireString(cmd, key) {
  if (typeof cmd[key] !== 'string') {
    throw new Error(`"${key}" must be a string`);
  }
  return cmd[key];
}

// ---- ops ---------------------------------------------------------------------
let exiting = false;
const inflight = new Set(); // ops not yet answered

const ops = {
  async info() {
    return {
      cli,
      package: loaded.pkg,
      version: loaded.version,
      module: loaded.file,
      node: process.version,
      pid: process.pid,
      cwd: process.cwd(),
    };
  },
  async connect() {
    const client = await getClient();
    await client.connect();
    return statusOf(client);
  },
  async status() {
    return statusOf(await getClient());
  },
  async context() {
    return { context: ideContextStore.get() ?? null };
  },
  async openDiff(cmd) {
    const filePath = requireString(cmd, 'filePath');
    const newContent = requireString(cmd, 'newContent');
    const client = await getClient();
    const calledAt = wallClock();
    const result = await client.openDiff(filePath, newContent);
    const resolvedAt = wallClock();
    if (result?.status === 'accepted') {
      return { status: 'accepted', content: result.content ?? null, calledAt, resolvedAt };
    }
    if (result?.status === 'rejected') {
      return { status: 'rejected', calledAt, resolvedAt };
    }
    throw new Error(`unexpected openDiff result ${JSON.stringify(result)}`);
  },
  async closeDiff(cmd) {
    const filePath = requireString(cmd, 'filePath');
    const client = await getClient();
    const options =
      cmd.suppressNotification === undefined
        ? undefined
        : { suppressNotification: !!cmd.suppressNotification };
    const content = await client.closeDiff(filePath, options);
    return { content: content ?? null };
  },
  // What the CLI does when the user answers in the terminal: closeDiff with
  // suppressNotification:true, then resolve the pending openDiff itself.
  async resolveDiffFromCli(cmd) {
    const filePath = requireString(cmd, 'filePath');
    const outcome = requireString(cmd, 'outcome');
    if (outcome !== 'accepted' && outcome !== 'rejected') {
      throw new Error('"outcome" must be "accepted" or "rejected"');
    }
    const client = await getClient();
    await client.resolveDiffFromCli(filePath, outcome);
    return {};
  },
  async disconnect() {
    const client = await getClient();
    await client.disconnect();
    return statusOf(client);
  },
  async exit(cmd) {
    exiting = true;
    stdoutWrite(JSON.stringify({ id: cmd.id, ok: true }) + '\n', () => process.exit(0));
    return undefined; // response already written
  },
};

async function handle(line) {
  let cmd;
  try {
    cmd = JSON.parse(line);
  } catch (err) {
    emit({ id: null, ok: false, error: `invalid JSON: ${err.message}` });
    return;
  }
  if (cmd === null || typeof cmd !== 'object' || Array.isArray(cmd)) {
    emit({ id: null, ok: false, error: 'command must be a JSON object' });
    return;
  }
  const id = cmd.id ?? null;
  const op = ops[cmd.op];
  if (typeof cmd.op !== 'string' || !Object.hasOwn(ops, cmd.op)) {
    emit({ id, ok: false, error: `unknown op ${JSON.stringify(cmd.op)}` });
    return;
  }
  const token = { op: cmd.op };
  inflight.add(token);
  try {
    const result = await op(cmd);
    if (cmd.op !== 'exit') {
      emit({ id, ok: true, ...result });
    }
  } catch (err) {
    emit({ id, ok: false, error: err instanceof Error ? err.message : String(err) });
  } finally {
    inflight.delete(token);
  }
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  if (exiting || line.trim() === '') return;
  void handle(line);
});
rl.on('close', () => {
  // stdin closed (the test went away or sent its last command): answer what
  // is in flight, except diffs still waiting for the user, then exit 0.
  if (exiting) return;
  const deadline = Date.now() + 5000;
  const poll = () => {
    const busy = [...inflight].some((t) => t.op !== 'openDiff');
    if (!busy || Date.now() > deadline) {
      stdoutWrite('', () => process.exit(0));
    } else {
      setTimeout(poll, 20);
    }
  };
  setImmediate(poll);
});
