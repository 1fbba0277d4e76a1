#!/usr/bin/env node
// browser-driver.mjs: drives the machine's Chromium (Debian `chromium`) with
// playwright-core, so Java end-to-end tests can use a page as a person would.
//
//   node browser/browser-driver.mjs        (CHROMIUM=/path overrides /usr/bin/chromium)
//
// stdin : one JSON command per line  {"id":N,"op":"...", ...args}
// stdout: one JSON line per command  {"id":N,"ok":true,...} | {"id":N,"ok":false,"error":"..."}
//         Nothing else is written to stdout; logs go to stderr.
// Ops run one at a time, in order. One page at a time; `open` replaces it.
//   open {url, width?, height?, colorScheme?: "light"|"dark"} -> {}
//        a fresh browser context; records the page's requests, console
//        errors and main-frame navigations from then on
//   waitFor {selector, text?, state?: "visible"|"hidden"|"attached"|"detached", timeout?} -> {}
//   click {selector, text?} | select {selector, value} | press {key} | type {text} -> {}
//   text {selector} -> {text}        (innerText of the first match)
//   count {selector} -> {count}
//   box {selector} -> {x, y, width, height, onTop}   (the first match's bounding box; onTop: a
//        click at its centre reaches it, or something inside it, and nothing laid over it)
//   viewport {width, height} -> {}
//   screenshot {path, selector?} -> {}   (the whole viewport, or one element)
//   log -> {requests:[{method,url,status,authorized,headers,body}], consoleErrors:[...], navigations:N, url}
//   html -> {html}                   (the page's document as it is now)
//   exit -> {}, then exit 0.       stdin EOF: closes the browser, exits 0.
import * as readline from 'node:readline';
import { chromium } from 'playwright-core';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const stdoutWrite = process.stdout.write.bind(process.stdout);
const emit = (obj) => stdoutWrite(JSON.stringify(obj) + '\n');
const log = (...args) => console.error('[browser-driver]', ...args);

let browser;
let context;
let page;
let record;

async function launch() {
  if (browser) return;
  // launch() gives Chromium a fresh temporary --user-data-dir and removes it on close.
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: FLAGS,
  });
  log('chromium', browser.version());
}

async function open({ url, width = 1280, height = 800, colorScheme = 'light' }) {
  await launch();
  // A fresh context per page: no storage or cache from earlier pages.
  await context?.close();
  context = await browser.newContext({ viewport: { width, height }, colorScheme });
  page = await context.newPage();
  record = { requests: [], consoleErrors: [], navigations: 0 };
  page.on('console', (m) => {
    if (m.type() === 'error') record.consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => record.consoleErrors.push(String(e)));
  page.on('framenavigated', (f) => {
    if (f === page.mainFrame()) record.navigations++;
  });
  // Recorded at the response, not when finished: the event stream never finishes.
  const seen = new WeakSet();
  page.on('response', (res) => {
    const r = res.request();
    seen.add(r);
    const entry = { method: r.method(), url: r.url(), status: res.status(), authorized: null, headers: null, body: null };
    record.requests.push(entry);
    r.allHeaders().then(
      (h) => (entry.authorized = h.authorization !== undefined),
      () => {},
    );
    res.allHeaders().then(
      (h) => {
        entry.headers = h;
        // An event stream never finishes; its events reach the page's DOM, which `html` returns.
        if (!String(h['content-type'] ?? '').startsWith('text/event-stream')) {
          res.text().then((b) => (entry.body = b), () => {});
        }
      },
      () => {},
    );
  });
  page.on('requestfailed', (r) => {
    if (!seen.has(r)) record.requests.push({ method: r.method(), url: r.url(), status: 0, authorized: null });
  });
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  return {};
}

function locate({ selector, text }) {
  if (!page) throw new Error('no page; send open first');
  const l = page.locator(selector);
  return text === undefined ? l : l.filter({ hasText: text });
}

const ops = {
  open,
  async waitFor(a) {
    await locate(a).first().waitFor({ state: a.state ?? 'visible', timeout: a.timeout ?? 15000 });
    return {};
  },
  async click(a) {
    await locate(a).first().click({ timeout: 15000 });
    return {};
  },
  async select({ selector, value }) {
    await page.locator(selector).first().selectOption(value, { timeout: 15000 });
    return {};
  },
  async press({ key }) {
    await page.keyboard.press(key);
    return {};
  },
  async type({ text }) {
    await page.keyboard.type(text);
    return {};
  },
  async text(a) {
    return { text: await locate(a).first().innerText({ timeout: 15000 }) };
  },
  async count(a) {
    return { count: await locate(a).count() };
  },
  async box(a) {
    return locate(a).first().evaluate((el) => {
      const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      return { x: r.x, y: r.y, width: r.width, height: r.height, onTop: hit !== null && el.contains(hit) };
    }, null, { timeout: 15000 });
  },
  async viewport({ width, height }) {
    await page.setViewportSize({ width, height });
    return {};
  },
  async screenshot({ path: file, selector }) {
    await (selector ? page.locator(selector).first() : page).screenshot({ path: file });
    return {};
  },
  async log() {
    return { ...record, url: page.url() };
  },
  async html() {
    return { html: await page.content() };
  },
};

async function close() {
  await browser?.close();
}

const rl = readline.createInterface({ input: process.stdin });
let queue = Promise.resolve();
rl.on('line', (line) => {
  queue = queue.then(async () => {
    let cmd;
    try {
      cmd = JSON.parse(line);
    } catch {
      return emit({ id: null, ok: false, error: 'unparseable command' });
    }
    const { id, op, ...args } = cmd;
    if (op === 'exit') {
      await close();
      emit({ id, ok: true });
      process.exit(0);
    }
    const fn = ops[op];
    if (!fn) return emit({ id, ok: false, error: `unknown op ${op}` });
    try {
      emit({ id, ok: true, ...(await fn(args)) });
    } catch (e) {
      emit({ id, ok: false, error: String(e?.message ?? e) });
    }
  });
});
rl.on('close', () => queue.then(close).then(() => process.exit(0)));
