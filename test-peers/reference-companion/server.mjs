#!/usr/bin/env node
// A reference companion on the official VS Code companions' stack (Node, Express, cors and the
// MCP TypeScript SDK's StreamableHTTPServerTransport), built the way their ide-server.ts is: the
// same middleware in the same order, one McpServer and transport per session, the first
// ide/contextUpdate sent when the session's GET stream opens, each notification validated with
// zod before it is sent, a 50 ms trailing debounce on context changes. It has no editor: what
// VS Code would tell it comes through the same editor API `companion4j serve` offers, so that
// scripts/benchmark.sh side-by-side can drive both alike.
//
//   node server.mjs [--stack qwen|gemini] [--workspace DIR]
//
// --stack picks the SDK of one official companion: qwen (default) 1.30.0, the version Qwen Code
// 0.24.4 bundles, whose Node transport wraps the web-standard one through Hono's adapter (as from
// SDK 1.24); gemini 1.23.0, which the Gemini CLI companion pins, the last with a transport of its
// own on Node's request and response.
// --workspace defaults to the current directory.
//
// Contract shared with `companion4j serve`, as far as the benchmark needs it:
// - discovery files: $QWEN_HOME/ide/<port>.lock (else ~/.qwen/ide) and
//   <os.tmpdir()>/gemini/ide/gemini-ide-server-<pid>-<port>.json, written like the official
//   companions write theirs (writeFile, then chmod 0600), with ideInfo so a CLI outside VS Code
//   sees the IDE;
// - stdout: one JSON line {"event":"ready","port","pid","workspacePath","editorApi"} once they are
//   written; logs go to stderr;
// - editor API: POST /editor/events with a focus, cursor, selection or close event (204), the
//   same bearer token as /mcp.
// - MCP tools openDiff {filePath,newContent} (answered with content: [] once the proposal is
//   recorded) and closeDiff {filePath,suppressNotification?} (answers {"content": ...} as JSON
//   text), outcomes as ide/diffRejected on the session's stream;
// - DELETE /mcp ends a session, so that the benchmark's clients leave none behind (the official
//   companions have no such route: their sessions live until the server stops).
// SIGINT/SIGTERM remove the discovery files and exit; SIGUSR2 collects garbage when started with
// --expose-gc (the benchmark reads memory after a full collection).

import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import cors from 'cors';
import express from 'express';
import { z } from 'zod';
import { ideContextNotificationSchema } from './context-schema.mjs';

const DEBOUNCE_MS = 50;
const KEEP_ALIVE_MS = 30_000;
const MAX_FILES = 10;
const MAX_SELECTED_TEXT = 16_384;
const IDE_INFO = { name: 'reference', displayName: 'Reference companion' };

const log = (...args) => console.error('[reference-companion]', ...args);

function option(name) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const stack = option('--stack') ?? 'qwen';
const sdk = { qwen: '@modelcontextprotocol/sdk', gemini: 'mcp-sdk-1.23.0' }[stack];
if (!sdk) {
  log(`unknown --stack ${stack}; expected qwen or gemini`);
  process.exit(64);
}
const [{ McpServer }, { StreamableHTTPServerTransport }, { isInitializeRequest }] = await Promise.all([
  import(`${sdk}/server/mcp.js`),
  import(`${sdk}/server/streamableHttp.js`),
  import(`${sdk}/types.js`),
]);
const workspace = path.resolve(option('--workspace') ?? process.cwd());
const authToken = randomUUID();

const IdeContextNotificationSchema = ideContextNotificationSchema(z);

/** Open files as the official OpenFilesManager keeps them: newest first, one active, ten at most. */
class OpenFiles {
  files = [];
  timer = undefined;

  constructor(onChange) {
    this.onChange = onChange;
  }

  apply(event) {
    if (event.type === 'close') {
      this.files = this.files.filter((f) => f.path !== event.path);
    } else {
      let file = this.files[0];
      if (!file || file.path !== event.path) {
        this.focus(event.path);
        file = this.files[0];
      }
      if (event.type === 'cursor') {
        file.cursor = { line: event.line, character: event.character };
      } else if (event.type === 'selection') {
        file.selectedText = event.text ? event.text.substring(0, MAX_SELECTED_TEXT) : undefined;
      }
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(this.onChange, DEBOUNCE_MS);
  }

  focus(filePath) {
    const active = this.files.find((f) => f.isActive);
    if (active) {
      active.isActive = false;
      active.cursor = undefined;
      active.selectedText = undefined;
    }
    this.files = this.files.filter((f) => f.path !== filePath);
    this.files.unshift({ path: filePath, timestamp: Date.now(), isActive: true });
    if (this.files.length > MAX_FILES) {
      this.files.pop();
    }
  }

  get state() {
    return { workspaceState: { openFiles: [...this.files], isTrusted: true } };
  }
}

/** Proposals in review, one per path: what the official DiffManager keeps without the views. */
class Diffs {
  byPath = new Map();

  async open(sessionId, filePath, newContent) {
    const file = await insideWorkspace(filePath);
    let original = '';
    try {
      original = await fs.readFile(file, 'utf8');
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
    }
    const before = this.byPath.get(filePath);
    this.byPath.set(filePath, { id: randomUUID(), sessionId, filePath, original, newContent });
    if (before && before.sessionId !== sessionId) {
      notifySession(before.sessionId, 'ide/diffRejected', { filePath });
    }
  }

  close(sessionId, filePath, suppressNotification) {
    const diff = this.byPath.get(filePath);
    if (!diff || diff.sessionId !== sessionId) {
      return undefined;
    }
    this.byPath.delete(filePath);
    if (!suppressNotification) {
      notifySession(sessionId, 'ide/diffRejected', { filePath });
    }
    return diff.newContent;
  }
}

async function insideWorkspace(filePath) {
  if (!path.isAbsolute(filePath)) {
    throw new Error(`filePath must be absolute: ${filePath}`);
  }
  const root = await fs.realpath(workspace);
  const dir = await fs.realpath(path.dirname(filePath));
  if (dir !== root && !dir.startsWith(root + path.sep)) {
    throw new Error(`${filePath} is outside the workspace`);
  }
  return path.join(dir, path.basename(filePath));
}

const transports = {};
const sessionsWithInitialNotification = new Set();
const openFiles = new OpenFiles(() => {
  for (const transport of Object.values(transports)) {
    sendContext(transport);
  }
});
const diffs = new Diffs();

function sendContext(transport) {
  const notification = IdeContextNotificationSchema.parse({
    jsonrpc: '2.0',
    method: 'ide/contextUpdate',
    params: openFiles.state,
  });
  transport.send(notification).catch((err) => log('context not sent:', err.message));
}

function notifySession(sessionId, method, params) {
  transports[sessionId]
    ?.send({ jsonrpc: '2.0', method, params })
    .catch((err) => log(`${method} not sent:`, err.message));
}

function createMcpServer() {
  const server = new McpServer(
    { name: 'reference-companion-mcp-server', version: '1.0.0' },
    { capabilities: { logging: {} } },
  );
  server.registerTool(
    'openDiff',
    {
      description: '(IDE Tool) Open a diff view to create or modify a file.',
      inputSchema: { filePath: z.string(), newContent: z.string() },
    },
    async ({ filePath, newContent }, extra) => {
      await diffs.open(extra.sessionId, filePath, newContent);
      return { content: [] };
    },
  );
  server.registerTool(
    'closeDiff',
    {
      description: '(IDE Tool) Close an open diff view for a specific file.',
      inputSchema: { filePath: z.string(), suppressNotification: z.boolean().optional() },
    },
    async ({ filePath, suppressNotification }, extra) => {
      const content = diffs.close(extra.sessionId, filePath, suppressNotification);
      return { content: [{ type: 'text', text: JSON.stringify({ content: content ?? null }) }] };
    },
  );
  return server;
}

class CORSError extends Error {}

const app = express();
app.use(express.json({ limit: '10mb' }));
app.use(
  cors({
    origin: (origin, callback) =>
      origin ? callback(new CORSError('Request denied by CORS policy.'), false) : callback(null, true),
  }),
);
app.use((req, res, next) => {
  const port = server.address().port;
  const allowed = [`localhost:${port}`, `127.0.0.1:${port}`, `host.docker.internal:${port}`];
  if (!allowed.includes(req.headers.host || '')) {
    return res.status(403).json({ error: 'Invalid Host header' });
  }
  next();
});
app.use((req, res, next) => {
  const parts = (req.headers.authorization || '').split(' ');
  if (parts.length !== 2 || parts[0] !== 'Bearer' || parts[1] !== authToken) {
    return res.status(401).send('Unauthorized');
  }
  next();
});

app.post('/mcp', async (req, res) => {
  const sessionId = req.headers['mcp-session-id'];
  let transport;
  if (sessionId && transports[sessionId]) {
    transport = transports[sessionId];
  } else if (!sessionId && isInitializeRequest(req.body)) {
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports[id] = transport;
      },
    });
    const keepAlive = setInterval(() => {
      transport.send({ jsonrpc: '2.0', method: 'ping' }).catch(() => clearInterval(keepAlive));
    }, KEEP_ALIVE_MS);
    transport.onclose = () => {
      clearInterval(keepAlive);
      if (transport.sessionId) {
        sessionsWithInitialNotification.delete(transport.sessionId);
        delete transports[transport.sessionId];
      }
    };
    await createMcpServer().connect(transport);
  } else {
    return res.status(400).json({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Bad Request: No valid session ID provided for non-initialize request.' },
      id: null,
    });
  }
  try {
    await transport.handleRequest(req, res, req.body);
  } catch (err) {
    log('MCP request failed:', err.message);
    if (!res.headersSent) {
      res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
    }
  }
});

async function handleSessionRequest(req, res) {
  const sessionId = req.headers['mcp-session-id'];
  const transport = sessionId && transports[sessionId];
  if (!transport) {
    return res.status(400).send('Invalid or missing session ID');
  }
  if (req.method === 'GET' && !sessionsWithInitialNotification.has(sessionId)) {
    // The official companions send the first context after handleRequest returns. With the SDK's
    // Hono-based transport (1.24 and later) a GET's handleRequest returns only when its stream
    // closes, so that would send nothing while the CLI is connected: send it once the stream's
    // head is out instead, as the companions' intent is (and the SDK 1.23 they started on did).
    const writeHead = res.writeHead;
    res.writeHead = function (status, ...rest) {
      res.writeHead = writeHead;
      const result = writeHead.call(this, status, ...rest);
      if (status === 200 && !sessionsWithInitialNotification.has(sessionId)) {
        sessionsWithInitialNotification.add(sessionId);
        queueMicrotask(() => sendContext(transport));
      }
      return result;
    };
  }
  try {
    await transport.handleRequest(req, res);
  } catch (err) {
    log('session request failed:', err.message);
    if (!res.headersSent) {
      res.status(400).send('Bad Request');
    }
  }
}
app.get('/mcp', handleSessionRequest);
app.delete('/mcp', handleSessionRequest);

const EditorEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('focus'), path: z.string() }),
  z.object({ type: z.literal('close'), path: z.string() }),
  z.object({ type: z.literal('cursor'), path: z.string(), line: z.number().int().positive(), character: z.number().int().positive() }),
  z.object({ type: z.literal('selection'), path: z.string(), text: z.string() }),
]);

app.post('/editor/events', async (req, res) => {
  const parsed = EditorEvent.safeParse(req.body);
  if (!parsed.success) {
    return res.status(400).json({ error: parsed.error.issues[0]?.message ?? 'bad event' });
  }
  const event = parsed.data;
  if (event.type !== 'close') {
    const stat = await fs.stat(event.path).catch(() => undefined);
    if (!stat?.isFile()) {
      return res.status(400).json({ error: `not a file: ${event.path}` });
    }
  }
  openFiles.apply(event);
  res.status(204).end();
});

app.use((err, req, res, next) => {
  if (err instanceof CORSError) {
    return res.status(403).json({ error: 'Request denied by CORS policy.' });
  }
  next(err);
});

const discoveryFiles = [];

async function writeDiscoveryFile(file, content) {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, JSON.stringify(content));
  await fs.chmod(file, 0o600);
  discoveryFiles.push(file);
}

const server = app.listen(0, '127.0.0.1', async () => {
  const port = server.address().port;
  const qwenHome = process.env.QWEN_HOME || path.join(os.homedir(), '.qwen');
  const common = { port, workspacePath: workspace, authToken, ideInfo: IDE_INFO };
  await writeDiscoveryFile(path.join(qwenHome, 'ide', `${port}.lock`), { ...common, ppid: process.ppid });
  await writeDiscoveryFile(
    path.join(os.tmpdir(), 'gemini', 'ide', `gemini-ide-server-${process.pid}-${port}.json`),
    common,
  );
  process.stdout.write(
    JSON.stringify({
      event: 'ready',
      port,
      pid: process.pid,
      workspacePath: workspace,
      editorApi: `http://127.0.0.1:${port}/editor`,
    }) + '\n',
  );
});

async function stop() {
  await Promise.all(discoveryFiles.map((f) => fs.rm(f, { force: true })));
  process.exit(0);
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
// The JVM's collection is asked for with jcmd GC.run; this one with a signal.
if (globalThis.gc) {
  process.on('SIGUSR2', () => globalThis.gc());
}
