// The clients the side-by-side benchmark measures with. All share one shape:
//   await X.connect(port, token, onContext)   initialize, tools/list, notification stream open
//   await client.openDiff(filePath, newContent)
//   await client.close()                        ends the session (DELETE), so none is left behind
// onContext(params, arrivedMs) runs for every ide/contextUpdate, arrivedMs from performance.now().

import * as net from 'node:net';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { ideContextNotificationSchema } from '../reference-companion/context-schema.mjs';

const PROTOCOL_VERSION = '2025-06-18';

const IdeContextNotificationSchema = ideContextNotificationSchema(z);

/** The MCP TypeScript SDK client used as the CLIs' IdeClient uses it. */
export function sdkClient(label, pkg) {
  const modules = Promise.all([
    import(`${pkg}/client/index.js`),
    import(`${pkg}/client/streamableHttp.js`),
    import(`${pkg}/types.js`),
  ]);
  return {
    label,
    async connect(port, token, onContext) {
      const [{ Client }, { StreamableHTTPClientTransport }, { CallToolResultSchema }] = await modules;
      const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      });
      const client = new Client({ name: 'side-by-side', version: '1.0.0' });
      client.setNotificationHandler(IdeContextNotificationSchema, (n) => onContext(n.params, performance.now()));
      await client.connect(transport);
      await client.listTools();
      return {
        openDiff: (filePath, newContent) =>
          client.request(
            { method: 'tools/call', params: { name: 'openDiff', arguments: { filePath, newContent } } },
            CallToolResultSchema,
          ),
        async close() {
          await transport.terminateSession();
          await client.close();
        },
      };
    },
  };
}

/**
 * One HTTP/1.1 keep-alive connection to a companion, one request at a time; a response whose
 * body is a stream (the GET) hands each body chunk to onBody and never completes.
 */
class Connection {
  constructor(port) {
    this.port = port;
    this.buffer = Buffer.alloc(0);
    this.pending = undefined;
  }

  open() {
    this.buffer = Buffer.alloc(0);
    return new Promise((resolve, reject) => {
      this.socket = net.connect(this.port, '127.0.0.1', resolve);
      this.socket.setNoDelay(true);
      this.socket.on('error', (err) => (this.pending ? this.pending.reject(err) : reject(err)));
      this.socket.on('close', () => this.pending?.reject(new Error('connection closed')));
      this.socket.on('data', (data) => {
        this.buffer = this.buffer.length ? Buffer.concat([this.buffer, data]) : data;
        this.parse();
      });
    });
  }

  async request(head, body = '', onBody) {
    // Reopened when the companion closed it: Companion4J closes a connection that sent no request
    // within a few seconds of opening, as clients pooling keep-alive connections expect.
    if (!this.socket || this.socket.destroyed) await this.open();
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject, onBody, head: undefined, chunks: [] };
      this.socket.write(head + `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n` + body);
    });
  }

  parse() {
    const p = this.pending;
    if (!p) return;
    if (!p.head) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
      this.buffer = this.buffer.subarray(end + 4);
      const headers = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      p.head = { status: Number(lines[0].split(' ')[1]), headers };
      p.chunked = headers['transfer-encoding'] === 'chunked';
      // Without a length or chunks a stream runs until the connection closes (Companion4J's GET).
      p.length = headers['content-length'] !== undefined ? Number(headers['content-length']) : p.onBody ? Infinity : 0;
    }
    if (p.length === Infinity) {
      p.onBody(this.buffer);
      this.buffer = Buffer.alloc(0);
      return;
    }
    if (!p.chunked) {
      if (this.buffer.length < p.length) return;
      p.chunks.push(this.buffer.subarray(0, p.length));
      this.buffer = this.buffer.subarray(p.length);
      return this.complete();
    }
    for (;;) {
      const eol = this.buffer.indexOf('\r\n');
      if (eol < 0) return;
      const size = parseInt(this.buffer.subarray(0, eol).toString('latin1'), 16);
      if (this.buffer.length < eol + 2 + size + 2) return;
      const chunk = this.buffer.subarray(eol + 2, eol + 2 + size);
      this.buffer = this.buffer.subarray(eol + 2 + size + 2);
      if (size === 0) return this.complete();
      if (p.onBody) p.onBody(chunk);
      else p.chunks.push(chunk);
    }
  }

  complete() {
    const p = this.pending;
    this.pending = undefined;
    p.resolve({ ...p.head, body: Buffer.concat(p.chunks).toString('utf8') });
  }

  close() {
    this.socket?.destroy();
  }
}

/**
 * The thinnest Streamable HTTP client: one keep-alive socket for requests, one for the
 * notification stream, no framework. Its figures are the companion's own cost.
 */
export const rawClient = {
  label: 'raw HTTP/1.1 client',
  async connect(port, token, onContext) {
    const requests = new Connection(port);
    let sessionId;
    let id = 0;
    const head = (method, accept = 'application/json, text/event-stream') =>
      `${method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n` +
      (sessionId ? `mcp-session-id: ${sessionId}\r\nmcp-protocol-version: ${PROTOCOL_VERSION}\r\n` : '') +
      (method === 'POST' ? 'Content-Type: application/json\r\n' : '') +
      `Accept: ${accept}\r\n`;
    const post = async (message) => {
      const response = await requests.request(head('POST'), JSON.stringify({ jsonrpc: '2.0', ...message }));
      if (response.status >= 300) {
        throw new Error(`${message.method} answered ${response.status}: ${response.body}`);
      }
      return response;
    };
    const initialized = await post({
      id: ++id,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'side-by-side-raw', version: '1.0.0' } },
    });
    sessionId = initialized.headers['mcp-session-id'];
    await post({ method: 'notifications/initialized' });

    const stream = new Connection(port);
    const decoder = new StringDecoder('utf8');
    let pending = '';
    stream
      .request(head('GET', 'text/event-stream'), '', (chunk) => {
        const arrived = performance.now();
        pending += decoder.write(chunk);
        let end;
        while ((end = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, end).replace(/\r$/, '');
          pending = pending.slice(end + 1);
          if (line.startsWith('data:') && line.includes('"ide/contextUpdate"')) {
            onContext(JSON.parse(line.slice(5)).params, arrived);
          }
        }
      })
      .catch(() => {});
    await post({ id: ++id, method: 'tools/list' });
    return {
      openDiff: (filePath, newContent) =>
        post({ id: ++id, method: 'tools/call', params: { name: 'openDiff', arguments: { filePath, newContent } } }),
      async close() {
        stream.close();
        await requests.request(head('DELETE'));
        requests.close();
      },
    };
  },
};

/** Posts editor events the way an editor plugin would: one keep-alive connection, no library. */
export function editorApi(port, token) {
  const connection = new Connection(port);
  return {
    async post(event) {
      const response = await connection.request(
        `POST /editor/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n`,
        JSON.stringify(event),
      );
      if (response.status !== 204) {
        throw new Error(`editor event answered ${response.status}: ${response.body}`);
      }
    },
    close: () => connection.close(),
  };
}

/** Sends one initialize and returns when its answer is complete: the cold start's last step. */
export async function initializeOnce(port, token) {
  const connection = new Connection(port);
  try {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'side-by-side-start', version: '1.0.0' } },
    });
    const response = await connection.request(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n` +
        'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n',
      body,
    );
    if (response.status !== 200) {
      throw new Error(`initialize answered ${response.status}: ${response.body}`);
    }
  } finally {
    connection.close();
  }
}
