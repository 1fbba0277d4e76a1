// The chat panel's cost of one streamed chunk as a conversation grows, in the machine's Chromium:
// from the chunk's event reaching the panel to its log changed (the event's parsing included).
// Usage: node bench/chat-render.mjs CHAT_JS [PLAYWRIGHT_CORE_DIR]
//   CHAT_JS             the chat.js to measure (the page's own, or an earlier one for "before")
//   PLAYWRIGHT_CORE_DIR where playwright-core is installed (default: the test peers')
// Prints one line per size: entries, median and p90 of 40 chunks, in milliseconds.
import * as esbuild from 'esbuild';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const chatJs = path.resolve(process.argv[2] ?? path.join(here, '../src/chat.js'));
const playwrightDir = path.resolve(process.argv[3] ?? path.join(here, '../../../../../test-peers/node_modules/playwright-core'));
const SIZES = [10, 1000, 5000];
const CHUNKS = 40;

// The panel with an API that serves one daemon-path chat whose events the benchmark sends.
const harness = `
import { ChatPanel } from ${JSON.stringify(chatJs)};
const encoder = new TextEncoder();
let push;
const api = {
  state: null,
  async chatState(base = '/chat') { return base === '/chat' ? this.state : { configured: false }; },
  async chatSessions() { return []; },
  async chatStream(base = '/chat') {
    if (base !== '/chat') throw new Error('no such chat');
    return new ReadableStream({ start(c) { push = (s) => c.enqueue(encoder.encode('event: chat\\ndata: ' + JSON.stringify(s) + '\\n\\n')); } });
  },
  async chat() {},
};
function state(entries) {
  return { configured: true, daemon: '127.0.0.1:4170', workspace: '/ws', sessionId: 's', problem: '', models: [],
    conversation: { state: 'connected', stateReason: '', modelId: 'm', modelName: 'm', approvalMode: 'default',
      turnRunning: true, entries, plan: [], permissions: [] } };
}
window.bench = async (size, chunks) => {
  const entries = [];
  for (let i = 0; i < size; i++) {
    const text = 'Entry ' + i + ': ' + 'some words of a long answer, with **markdown** and \`code\`. '.repeat(3);
    entries.push(i % 2 === 0 ? { id: 'e' + i, type: 'user', text } : { id: 'e' + i, type: 'assistant', text, streaming: false });
  }
  const last = { id: 'streamed', type: 'assistant', text: 'c', streaming: true };
  api.state = state([...entries, last]);
  document.getElementById('chat-log').replaceChildren();
  const started = new ChatPanel(api).start();
  while (!push) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 50));
  const log = document.getElementById('chat-log');
  const times = [];
  for (let k = 0; k < chunks; k++) {
    last.text += ' c' + k;
    const s = state([...entries, { ...last }]);
    const changed = new Promise((r) => new MutationObserver((_, o) => { o.disconnect(); r(); })
      .observe(log, { childList: true, subtree: true, characterData: true }));
    const t0 = performance.now();
    push(s);
    await changed;
    times.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 5));
  }
  void started;
  return times;
};
`;

const built = await esbuild.build({
  stdin: { contents: harness, resolveDir: path.join(here, '../src'), loader: 'js' },
  absWorkingDir: path.join(here, '..'),
  nodePaths: [path.join(here, '../node_modules')],
  bundle: true,
  format: 'iife',
  write: false,
  logLevel: 'warning',
});
const css = await readFile(path.join(here, '../src/review.css'), 'utf8');
const page = await readFile(path.join(here, '../src/index.html'), 'utf8');
const section = page.slice(page.indexOf('<section class="chat"'), page.indexOf('</section>', page.indexOf('<section class="chat"')) + 10);

const { chromium } = await import(pathToFileURL(path.join(playwrightDir, 'index.mjs')).href);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--headless', '--no-sandbox'] });
try {
  console.log(`chat.js: ${chatJs}`);
  console.log('entries | median ms | p90 ms');
  for (const size of SIZES) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
    const tab = await context.newPage();
    await tab.setContent(`<!doctype html><html><head><style>${css}</style></head><body data-chat="on"><main>${section}</main></body></html>`);
    await tab.addScriptTag({ content: built.outputFiles[0].text });
    const times = (await tab.evaluate(([s, c]) => window.bench(s, c), [size, CHUNKS])).sort((a, b) => a - b);
    const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
    console.log(`${size} | ${at(0.5)} | ${at(0.9)}`);
    await context.close();
  }
} finally {
  await browser.close();
}
