// What a user waits for when a CLI proposes an edit: from the CLI's own IdeClient.openDiff call to
// the diff painted in the review page (Debian's Chromium) and in Neovim (a real TUI in tmux, the
// plugin attached as a user has it), and from the user's Accept to the CLI's openDiff promise
// resolving (ide/diffAccepted received). One `companion4j serve` per CLI, started by the repository's
// launcher as a user starts it; the CLI is driven by test-peers/ide-client-driver.mjs.
// Usage: node bench/proposal-to-pixels.mjs [runs] [clis] [editors]
//   runs     timed proposals per file after 3 warm-ups (default 30)
//   clis     comma-separated: qwen,gemini (default both)
//   editors  comma-separated: page,neovim (default both)
// Prints, per CLI, editor and file, p50 and p99 in milliseconds of each measure and of its steps.
// Needs no display: Chromium runs headless, Neovim in a tmux server of its own. Everything it
// starts (companion, driver, browser, tmux, nvim) ends with it, and its temporary folder goes.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../../../..');
const peers = path.join(repo, 'test-peers');
const RUNS = Number(process.argv[2] ?? 30);
const CLIS = (process.argv[3] ?? 'qwen,gemini').split(',');
const EDITORS = (process.argv[4] ?? 'page,neovim').split(',');
if (!Number.isInteger(RUNS) || RUNS < 1 || !CLIS.every((c) => ['qwen', 'gemini'].includes(c)) || !EDITORS.every((e) => ['page', 'neovim'].includes(e))) {
  console.error('usage: node bench/proposal-to-pixels.mjs [runs >= 1] [qwen,gemini] [page,neovim]');
  process.exit(64);
}
const WARMUPS = 3;
const WAIT_MS = 30000;
// Between two proposals: a CLI does not propose the next edit the moment the last one is accepted,
// and the editor reloads the file the CLI wrote meanwhile.
const PAUSE_MS = 300;
const FILES = [
  { name: 'Small.java', lines: 20 },
  { name: 'Large.java', lines: 5000 },
];

const wallClock = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls probe every `every` ms until it gives a value; fails after WAIT_MS. */
async function until(what, probe, every = 2) {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`);
    await sleep(every);
  }
}

/** A Java source of about `lines` lines; line 2 is the one each proposal rewrites. */
function javaSource(lines, marker) {
  const out = ['package bench;', `// ${marker}`, '', 'public class Bench {'];
  for (let i = 0; out.length < lines - 1; i++) {
    out.push(`  static int field${i} = ${i}; // a line of the file`);
  }
  out.push('}');
  return out.join('\n') + '\n';
}

// ---- processes ---------------------------------------------------------------------------------

const cleanups = [];
function onExit(fn) {
  cleanups.push(fn);
}
async function cleanUp() {
  for (const fn of cleanups.splice(0).reverse()) {
    try {
      await fn();
    } catch (e) {
      console.error('cleanup:', e.message);
    }
  }
}
const root = mkdtempSync(path.join(tmpdir(), 'companion4j-pixels-'));
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () =>
    cleanUp().finally(() => {
      rmSync(root, { recursive: true, force: true });
      process.exit(130);
    }),
  );
}

function environment(root) {
  const env = {
    HOME: path.join(root, 'home'),
    QWEN_HOME: path.join(root, 'home/.qwen'),
    TMPDIR: path.join(root, 'tmp'),
    PATH: `${path.join(root, 'home/.local/bin')}:${process.env.PATH}`,
    // The machine runs in a container (/.dockerenv): without it Gemini CLI looks for its companion on
    // host.docker.internal only.
    SSH_CONNECTION: '127.0.0.1 1 127.0.0.1 2',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
  };
  for (const dir of [env.HOME, env.QWEN_HOME, env.TMPDIR]) mkdirSync(dir, { recursive: true });
  return env;
}

/** `companion4j serve` through the repository's launcher; resolves with its port and token. */
async function startCompanion(env, workspace) {
  const child = spawn(path.join(repo, 'companion4j'), ['serve', '--workspace', workspace], {
    cwd: workspace,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  onExit(() => stop(child));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const lines = readline.createInterface({ input: child.stdout });
  const ready = await Promise.race([
    new Promise((resolve) => lines.once('line', resolve)),
    new Promise((_, reject) => child.once('exit', () => reject(new Error(`companion exited before ready:\n${stderr}`)))),
    sleep(WAIT_MS).then(() => {
      throw new Error(`companion not ready after ${WAIT_MS} ms:\n${stderr}`);
    }),
  ]);
  lines.on('line', () => {});
  const { port } = JSON.parse(ready);
  const lock = JSON.parse(readFileSync(path.join(env.QWEN_HOME, 'ide', `${port}.lock`), 'utf8'));
  return { port, token: lock.authToken };
}

/** Ends a process group we started and waits for its leader. */
async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  if (await Promise.race([gone.then(() => true), sleep(10000).then(() => false)])) return;
  process.kill(-child.pid, 'SIGKILL');
  await gone;
}

/** The CLI's own IdeClient through the driver: call(op, args) resolves with its answer. */
async function startDriver(cli, env, workspace) {
  const child = spawn('node', [path.join(peers, 'ide-client-driver.mjs'), '--cli', cli], {
    cwd: workspace,
    env,
    stdio: ['pipe', 'pipe', 'ignore'],
    detached: true,
  });
  onExit(() => stop(child));
  const waiting = new Map();
  let next = 0;
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const msg = JSON.parse(line);
    if (msg.id === undefined || !waiting.has(msg.id)) return;
    const { resolve, reject } = waiting.get(msg.id);
    waiting.delete(msg.id);
    if (msg.ok) resolve(msg);
    else reject(new Error(`${cli} driver: ${msg.error}`));
  });
  const call = (op, args = {}) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      waiting.set(id, { resolve, reject });
      child.stdin.write(JSON.stringify({ id, op, ...args }) + '\n');
    });
  const status = await call('connect');
  if (status.status !== 'connected') throw new Error(`${cli} did not connect: ${status.details}`);
  return { call };
}

// ---- the review page -----------------------------------------------------------------------------

// Installed before the page's own script: stamps, on the page's wall clock, the last event-stream
// chunk read, the Accept click and the accept request; and paints() resolves on the first animation
// frame after the proposed side holds `marker`.
function pageProbe() {
  const bench = (window.__bench = { chunkAt: 0, openedAt: null, clickAt: 0, postAt: 0 });
  const now = () => performance.timeOrigin + performance.now();
  const read = ReadableStreamDefaultReader.prototype.read;
  ReadableStreamDefaultReader.prototype.read = async function () {
    const result = await read.call(this);
    if (typeof result.value === 'string') {
      bench.chunkAt = now();
      const opened = /"openedAt":"([^"]+)"/.exec(result.value);
      if (opened) bench.openedAt = opened[1];
    }
    return result;
  };
  const fetch = window.fetch;
  window.fetch = function (url, init) {
    if (String(url).endsWith('/accept')) bench.postAt = now();
    return fetch.call(this, url, init);
  };
  document.addEventListener('click', (e) => {
    if (e.target.closest?.('#accept')) bench.clickAt = performance.timeOrigin + e.timeStamp;
  }, true);
  bench.paints = (marker) =>
    new Promise((resolve) => {
      const holds = () =>
        [...document.querySelectorAll('#merge .cm-content[aria-label="Proposed text"]')].some((c) => c.textContent.includes(marker));
      const done = () => {
        const eventAt = bench.chunkAt;
        requestAnimationFrame(() => resolve({ paintedAt: now(), eventAt, openedAt: bench.openedAt }));
      };
      if (holds()) return done();
      new MutationObserver((_, observer) => {
        if (!holds()) return;
        observer.disconnect();
        done();
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
}

async function openPage(companion) {
  const { chromium } = await import(pathToFileURL(path.join(peers, 'node_modules/playwright-core/index.mjs')).href);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  onExit(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(pageProbe);
  await page.goto(`http://127.0.0.1:${companion.port}/review/#token=${companion.token}`);
  await page.locator('#status[data-state="live"]').waitFor({ timeout: WAIT_MS });
  return {
    name: 'page',
    async propose(driver, file, content, marker) {
      await page.evaluate((m) => void (window.__bench.painted = window.__bench.paints(m)), marker);
      const answer = driver.call('openDiff', { filePath: file, newContent: content });
      const shown = await withTimeout(page.evaluate(() => window.__bench.painted), 'the page to paint the proposal');
      await page.click('#accept:not([disabled])', { timeout: WAIT_MS });
      const { clickAt, postAt } = await page.evaluate(() => window.__bench);
      const resolved = await withTimeout(answer, 'the CLI to hear the Accept');
      return {
        calledAt: resolved.calledAt,
        openedAt: epochMs(shown.openedAt),
        receivedAt: shown.eventAt,
        paintedAt: shown.paintedAt,
        acceptAt: clickAt,
        answerSentAt: postAt,
        resolvedAt: resolved.resolvedAt,
      };
    },
    close: () => browser.close(),
  };
}

/** An ISO-8601 instant as epoch milliseconds, its microseconds kept (Date.parse drops them). */
function epochMs(iso) {
  const fraction = /\.(\d+)Z$/.exec(iso);
  return Date.parse(iso) + (fraction ? (Number('0.' + fraction[1]) * 1000) % 1 : 0);
}

function withTimeout(promise, what) {
  return Promise.race([
    promise,
    sleep(WAIT_MS).then(() => {
      throw new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`);
    }),
  ]);
}

// ---- Neovim ------------------------------------------------------------------------------------

// Sourced after the user's init.lua: stamps with vim.loop.gettimeofday() the proposal's line from
// `companion4j attach` reaching the plugin (before it is decoded), the proposal reaching review.show, the end of the first redraw that drew its window (a decoration provider's
// on_end), and the plugin sending the Accept (attach.request 'accept'), as JSON lines in $C4J_PROBE.
const NVIM_PROBE = `
local out = assert(io.open(os.getenv('C4J_PROBE'), 'a'))
local function now()
  local s, us = vim.loop.gettimeofday()
  return s * 1000 + us / 1000
end
local function write(fields)
  out:write(vim.json.encode(fields) .. '\\n')
  out:flush()
end
local review, attach = require('companion4j.review'), require('companion4j.attach')
local show, request = review.show, attach.request
review.show = function(diff)
  write({ ev = 'show', id = diff.id, openedAt = diff.openedAt, t = now() })
  return show(diff)
end
attach.request = function(method, params, on_done)
  if method == 'accept' then
    write({ ev = 'accept', id = params.diff, t = now() })
  end
  return request(method, params, on_done)
end
local decode = vim.json.decode
vim.json.decode = function(text, ...)
  if type(text) == 'string' and text:find('"diffOpened"', 1, true) then
    write({ ev = 'line', t = now() })
  end
  return decode(text, ...)
end
local drawn, seen = nil, {}
vim.api.nvim_set_decoration_provider(vim.api.nvim_create_namespace('c4j_bench'), {
  on_win = function(_, _, buf)
    local ok, id = pcall(vim.api.nvim_buf_get_var, buf, 'companion4j_diff')
    if ok and not seen[id] then
      seen[id], drawn = true, id
    end
    return false
  end,
  on_end = function()
    if drawn then
      write({ ev = 'drawn', id = drawn, t = now() })
      drawn = nil
    end
  end,
})
`;

async function openNeovim(env, workspace, root) {
  const home = env.HOME;
  // Installed as NeovimPluginIT installs it, as the plugin's README says: the package on the
  // runtime path, setup() in init.lua, the companion4j command on the PATH.
  const bin = path.join(home, '.local/bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'companion4j'), `#!/bin/sh\nexec ${path.join(repo, 'companion4j')} "$@"\n`);
  chmodSync(path.join(bin, 'companion4j'), 0o755);
  const pack = path.join(home, '.local/share/nvim/site/pack/companion4j/start');
  mkdirSync(pack, { recursive: true });
  if (!existsSync(path.join(pack, 'companion4j'))) symlinkSync(path.join(repo, 'editors/neovim'), path.join(pack, 'companion4j'));
  mkdirSync(path.join(home, '.config/nvim'), { recursive: true });
  writeFileSync(
    path.join(home, '.config/nvim/init.lua'),
    `vim.cmd('colorscheme desert')\nrequire('companion4j').setup({})\n` +
      `vim.o.statusline = '%f %m%=%{v:lua.require("companion4j").statusline()} '\n`,
  );
  const probeLua = path.join(root, 'probe.lua');
  writeFileSync(probeLua, NVIM_PROBE);
  const probeOut = path.join(root, 'probe.jsonl');
  writeFileSync(probeOut, '');
  const socket = path.join(root, 'tmux.sock');
  const vars = Object.entries({ ...env, C4J_PROBE: probeOut }).map(([k, v]) => `${k}=${v}`);
  const quote = (w) => `'${w.replace(/'/g, `'\\''`)}'`;
  const line = ['env', '-i', '-C', workspace, ...vars, '/usr/bin/nvim', '-S', probeLua, 'README.md'].map(quote).join(' ');
  const tmux = (...args) => {
    const r = spawnSync('/usr/bin/tmux', ['-S', socket, ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tmux ${args[0]}: ${r.stderr}`);
    return r.stdout;
  };
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'bench', '-x', '160', '-y', '50', line);
  onExit(() => spawnSync('/usr/bin/tmux', ['-S', socket, 'kill-server']));
  await until('Neovim to see the CLI', () => tmux('capture-pane', '-p', '-t', 'bench').includes('C4J 1 CLI'), 100);
  let read = 0;
  const events = [];
  const probe = () => {
    const text = readFileSync(probeOut, 'utf8');
    const complete = text.lastIndexOf('\n') + 1;
    for (const l of text.slice(read, complete).split('\n')) if (l) events.push(JSON.parse(l));
    read = complete;
    return events;
  };
  const find = (ev, id) => probe().find((e) => e.ev === ev && (id === undefined || e.id === id));
  return {
    name: 'neovim',
    async propose(driver, file, content, marker) {
      const from = events.length;
      const answer = driver.call('openDiff', { filePath: file, newContent: content });
      const shown = await until('Neovim to show the proposal', () => probe().slice(from).find((e) => e.ev === 'show'));
      const line = probe().slice(from).find((e) => e.ev === 'line');
      const drawn = await until('Neovim to draw the proposal', () => find('drawn', shown.id));
      // What the probe timed is what the terminal shows.
      await until('the proposal on the terminal', () => tmux('capture-pane', '-p', '-t', 'bench').includes(marker), 20);
      const acceptAt = wallClock();
      tmux('send-keys', '-t', 'bench', ':w', 'Enter');
      const resolved = await withTimeout(answer, 'the CLI to hear the Accept');
      const sent = await until('the plugin to send the Accept', () => find('accept', shown.id));
      return {
        calledAt: resolved.calledAt,
        openedAt: epochMs(shown.openedAt),
        lineAt: line.t,
        receivedAt: shown.t,
        paintedAt: drawn.t,
        acceptAt,
        answerSentAt: sent.t,
        resolvedAt: resolved.resolvedAt,
      };
    },
    close: () => spawnSync('/usr/bin/tmux', ['-S', socket, 'kill-server']),
  };
}

// ---- measuring ---------------------------------------------------------------------------------

const MEASURES = [
  ['proposal to pixels', 'calledAt', 'paintedAt'],
  ['  CLI to companion', 'calledAt', 'openedAt'],
  ['  companion to editor', 'openedAt', 'receivedAt'],
  ['    to the plugin', 'openedAt', 'lineAt'],
  ['    decoded and dispatched', 'lineAt', 'receivedAt'],
  ['  editor render', 'receivedAt', 'paintedAt'],
  ['accept to CLI', 'acceptAt', 'resolvedAt'],
  ['  input to answer sent', 'acceptAt', 'answerSentAt'],
  ['  answer to CLI', 'answerSentAt', 'resolvedAt'],
];

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

async function measure(editor, driver, workspace) {
  for (const { name, lines } of FILES) {
    const file = path.join(workspace, name);
    writeFileSync(file, javaSource(lines, 'as the CLI found it'));
    const samples = [];
    for (let i = 0; i < WARMUPS + RUNS; i++) {
      const marker = `proposal ${i} to ${name}`;
      const content = javaSource(lines, marker);
      const s = await editor.propose(driver, file, content, marker);
      // The CLI writes what was accepted.
      writeFileSync(file, content);
      if (i >= WARMUPS) samples.push(s);
      await sleep(PAUSE_MS);
    }
    for (const [label, from, to] of MEASURES) {
      if (samples[0][from] === undefined || samples[0][to] === undefined) continue;
      const values = samples.map((s) => s[to] - s[from]).sort((a, b) => a - b);
      console.log(`${editor.name} | ${name} (${lines} lines) | ${label} | ${quantile(values, 0.5).toFixed(1)} | ${quantile(values, 0.99).toFixed(1)}`);
    }
  }
}

try {
  console.log(`${RUNS} proposals per file after ${WARMUPS} warm-ups; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  for (const cli of CLIS) {
    const base = path.join(root, cli);
    const env = environment(base);
    const workspace = path.join(base, 'project');
    mkdirSync(workspace, { recursive: true });
    writeFileSync(path.join(workspace, 'README.md'), '# project\n');
    const companion = await startCompanion(env, workspace);
    const driver = await startDriver(cli, env, workspace);
    console.log(`\n${cli}: editor | file | measure | p50 ms | p99 ms`);
    for (const which of EDITORS) {
      const editor = which === 'page' ? await openPage(companion) : await openNeovim(env, workspace, base);
      await measure(editor, driver, workspace);
      await editor.close();
    }
    await cleanUp();
  }
} finally {
  await cleanUp();
  rmSync(root, { recursive: true, force: true });
}
