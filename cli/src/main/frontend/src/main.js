// The review page: shows what the companion knows (connected CLIs, the
// context they receive) and lets the user review the edits they propose.
import { AccessDenied, Api } from './api.js';
import { readEvents } from './sse.js';
import { DiffView } from './diffview.js';
import { ChatPanel } from './chat.js';

const TOKEN_KEY = 'companion4j.token';
const $ = (id) => document.getElementById(id);

const state = {
  roots: [],
  clients: new Map(),
  context: null,
  /** What the editor offers beyond context and diffs, e.g. 'diagnostics'. */
  features: [],
  /** The editor's diagnostics by file path: {path, diagnostics, total}. */
  diagnostics: new Map(),
  /** Pending diffs by id; a newer proposal for a file is a new diff that replaces the older. */
  diffs: new Map(),
  /** Pending changes of several files by id, each reviewed and answered as one. */
  changes: new Map(),
  /** The id of the diff or change on show. */
  selected: null,
  live: false,
};
/** Ids this page answered itself, so their diffClosed events stay quiet. */
const answeredHere = new Set();
/** The file whose diff on show was replaced: its newer proposal takes its place when it arrives. */
let followFile = null;

const darkQuery = matchMedia('(prefers-color-scheme: dark)');
const narrowQuery = matchMedia('(max-width: 820px)');
const diffView = new DiffView($('merge'));
let shownDiff = null;
/** The change on show, and one view per file of it: {path, view}. */
let shownChange = null;
let changeViews = [];

// ---- the token: from the URL fragment into this tab's memory only --------

function takeToken() {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromHash) {
    sessionStorage.setItem(TOKEN_KEY, fromHash);
    history.replaceState(null, '', location.pathname + location.search);
    return fromHash;
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

function gate(title, text) {
  $('gate-title').textContent = title;
  $('gate-text').textContent = text;
  $('gate').hidden = false;
  $('app').inert = true;
  setStatus('denied', 'Not connected');
}

// ---- connection status ---------------------------------------------------

function setStatus(kind, text) {
  $('status').dataset.state = kind;
  $('status-text').textContent = text;
  $('retry-now').hidden = kind !== 'retrying';
  document.body.dataset.connection = kind;
  updateActions();
}

// ---- rendering -----------------------------------------------------------

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') node.className = v;
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

/** The path relative to the workspace root that holds it, for display. */
function display(filePath) {
  for (const root of state.roots) {
    const prefix = root.endsWith('/') || root.endsWith('\\') ? root : root + '/';
    if (filePath.startsWith(prefix)) return filePath.slice(prefix.length);
  }
  return filePath;
}

function baseName(p) {
  return p.split(/[\\/]/).pop();
}

function dirName(p) {
  const parts = p.split(/[\\/]/);
  parts.pop();
  return parts.join('/');
}

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

function ago(time) {
  const ms = new Date(time).getTime();
  if (Number.isNaN(ms)) return '';
  const seconds = Math.round((ms - Date.now()) / 1000);
  if (Math.abs(seconds) < 60) return relativeFormat.format(seconds, 'second');
  if (Math.abs(seconds) < 3600) return relativeFormat.format(Math.round(seconds / 60), 'minute');
  return relativeFormat.format(Math.round(seconds / 3600), 'hour');
}

/** How long ago `time` was, as text the clock below keeps current. */
function agoText(time) {
  return el('span', { class: 'ago', dataset: { time } }, ago(time));
}

/** The time of day and how long ago, as nodes to append. */
function when(time) {
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? [] : [`${timeFormat.format(date)} (`, agoText(time), ')'];
}

/** How often "… seconds ago" moves on; only those texts change, nothing is rebuilt. */
const AGO_TICK_MS = 10_000;

function tickAgo() {
  for (const span of document.querySelectorAll('span.ago')) span.textContent = ago(span.dataset.time);
}

/** How the user tells a CLI apart: program, version, terminal and process when the companion knows them. */
function nameOf(client) {
  return client.label ?? `${client.name}${client.version ? ' ' + client.version : ''}`;
}

function clientLabel(diff) {
  const c = state.clients.get(diff.clientId);
  return c ? nameOf(c) : diff.clientName ?? 'a CLI';
}

const changeText = { new: 'new file', deleted: 'deleted' };

/** A badge for a proposal that creates a file or removes all of its text; none for other edits. */
function changeBadge(diff) {
  const text = changeText[diff.change];
  return text ? el('span', { class: `badge ${diff.change}`, dataset: { change: diff.change } }, text) : null;
}

/** Every pending diff and change, oldest first. */
function pendingItems() {
  return [...state.diffs.values(), ...state.changes.values()].sort((a, b) =>
    String(a.openedAt).localeCompare(String(b.openedAt)));
}

/** A change of several files: one item naming each of its files. */
function changeItem(c) {
  const item = el(
    'button',
    {
      type: 'button',
      class: 'diff-item change-item',
      'aria-current': c.id === state.selected ? 'true' : 'false',
      title: c.files.map((f) => f.path).join('\n'),
      onclick: () => select(c.id),
    },
    el('span', { class: 'name' }, `${c.files.length} files`, el('span', { class: 'badge change' }, 'one change')),
    ...c.files.map((f) => el('span', { class: 'dir change-path' }, display(f.path))),
    el('span', { class: 'meta' }, `${c.proposerName} · `, agoText(c.openedAt)),
  );
  return el('li', { dataset: { change: c.id, id: c.id } }, item);
}

function renderDiffList() {
  const list = $('diff-list');
  const items = pendingItems();
  list.replaceChildren(
    ...items.map((d) => {
      if (d.files) return changeItem(d);
      const rel = display(d.filePath);
      const item = el(
        'button',
        {
          type: 'button',
          class: 'diff-item',
          'aria-current': d.id === state.selected ? 'true' : 'false',
          title: d.filePath,
          onclick: () => select(d.id),
        },
        el('span', { class: 'name' }, baseName(rel), changeBadge(d)),
        dirName(rel) ? el('span', { class: 'dir' }, dirName(rel)) : null,
        el('span', { class: 'meta' }, `${clientLabel(d)} · `, agoText(d.openedAt)),
      );
      return el('li', { dataset: { file: d.filePath, id: d.id } }, item);
    }),
  );
  $('diff-count').textContent = String(items.length);
  $('diff-empty').hidden = items.length > 0;
}

function renderConnection() {
  $('roots').replaceChildren(
    ...(state.roots.length ? state.roots.map((r) => el('li', { class: 'mono' }, r)) : [el('li', { class: 'empty' }, 'No workspace root')]),
  );
  const clients = [...state.clients.values()];
  $('clients').replaceChildren(
    ...(clients.length
      ? clients.map((c) =>
          el(
            'li',
            { class: 'client', dataset: { client: c.id } },
            el('strong', {}, nameOf(c)),
            el('span', { class: 'meta' }, ' since ', ...when(c.connectedAt)),
          ),
        )
      : [el('li', { class: 'empty' }, 'No CLI connected. Start qwen or gemini inside the workspace.')]),
  );
  renderContext();
  renderDiagnostics();
  renderWaiting(clients);
}

/**
 * With a CLI connected and nothing to review, says what makes the CLIs send their edits here:
 * in an automatic approval mode they write files themselves and never ask.
 */
function renderWaiting(clients) {
  const hint = $('approval-hint');
  hint.hidden = clients.length === 0 || state.diffs.size + state.changes.size > 0;
  if (hint.hidden) return;
  const programs = new Set(clients.map((c) => c.program).filter(Boolean));
  $('approval-qwen').hidden = programs.size > 0 && !programs.has('Qwen Code');
  $('approval-gemini').hidden = programs.size > 0 && !programs.has('Gemini CLI');
}

/** Most diagnostics listed per file; the rest are counted. */
const SHOWN_PER_FILE = 50;

function renderDiagnostics() {
  const box = $('diagnostics');
  const files = [...state.diagnostics.values()].filter((f) => f.total > 0)
    .sort((a, b) => errors(b) - errors(a) || a.path.localeCompare(b.path));
  const total = files.reduce((n, f) => n + f.total, 0);
  $('diagnostics-count').textContent = String(total);
  if (!state.features.includes('diagnostics')) {
    box.replaceChildren(el('p', { class: 'empty' },
      'No editor has reported diagnostics yet. NetBeans and the Neovim and Emacs plugins report them (Emacs from Flymake or Flycheck).'));
    return;
  }
  if (!files.length) {
    box.replaceChildren(el('p', { class: 'empty' }, 'No problems in the open files.'));
    return;
  }
  box.replaceChildren(...files.map((f) => {
    const shown = f.diagnostics.slice(0, SHOWN_PER_FILE);
    const more = f.total - shown.length;
    return el('div', { class: 'diag-file', dataset: { path: f.path } },
      el('div', { class: 'mono diag-path', title: f.path }, display(f.path)),
      el('ul', { class: 'plain diag-list' },
        ...shown.map((d) => el('li', { class: `diag ${d.severity}` },
          el('span', { class: 'diag-where' }, `${d.range.startLine}:${d.range.startCharacter}`),
          el('span', { class: 'diag-severity' }, d.severity),
          el('span', { class: 'diag-message' }, d.source ? `${d.message} (${d.source})` : d.message))),
        ...(more > 0 ? [el('li', { class: 'meta' }, `and ${more} more`)] : [])));
  }));
}

function errors(file) {
  return file.diagnostics.filter((d) => d.severity === 'error').length;
}

function renderContext() {
  const box = $('context');
  const ws = state.context?.workspaceState;
  const files = ws?.openFiles ?? [];
  if (!ws) {
    box.replaceChildren(el('p', { class: 'empty' }, 'No context yet.'));
    return;
  }
  const active = files.find((f) => f.isActive);
  const recent = files.filter((f) => f !== active);
  const parts = [];
  if (active) {
    const cursor = active.cursor ? `line ${active.cursor.line}, column ${active.cursor.character}` : 'no cursor';
    parts.push(
      el('div', { class: 'ctx-row' }, el('span', { class: 'label' }, 'Active file'),
        el('span', { class: 'mono', id: 'ctx-active', title: active.path }, display(active.path))),
      el('div', { class: 'ctx-row' }, el('span', { class: 'label' }, 'Cursor'), el('span', { id: 'ctx-cursor' }, cursor)),
    );
    if (active.selectedText) {
      const text = active.selectedText;
      const excerpt = text.length > 400 ? text.slice(0, 400) + '…' : text;
      parts.push(
        el('div', { class: 'ctx-row' }, el('span', { class: 'label' }, 'Selection'),
          el('span', { class: 'meta' }, `${text.length} characters`)),
        el('pre', { class: 'selection', id: 'ctx-selection' }, excerpt),
      );
    }
  } else {
    parts.push(el('p', { class: 'empty' }, 'No active file.'));
  }
  if (recent.length) {
    parts.push(
      el('div', { class: 'label' }, 'Recent files'),
      el('ul', { class: 'plain recent', id: 'ctx-recent' },
        ...recent.map((f) => el('li', { class: 'mono', title: f.path }, display(f.path)))),
    );
  }
  parts.push(el('div', { class: 'ctx-row' }, el('span', { class: 'label' }, 'Workspace trusted'),
    el('span', {}, ws.isTrusted === false ? 'no' : 'yes')));
  box.replaceChildren(...parts);
}

function clearChange() {
  for (const { view } of changeViews) view.clear();
  changeViews = [];
  shownChange = null;
  $('change-files').replaceChildren();
}

/** Every file of `change` in a view of its own, the proposed side editable in each. */
function showChange(change) {
  clearChange();
  shownChange = change;
  $('review-main').dataset.id = change.id;
  $('review-path').replaceChildren(`${change.files.length} files, one change`);
  $('review-path').title = change.files.map((f) => f.path).join('\n');
  const box = $('change-files');
  for (const f of change.files) {
    const merge = el('div', { class: 'merge' });
    box.append(
      el(
        'section',
        { class: 'change-file', dataset: { path: f.path } },
        el(
          'div',
          { class: 'change-file-head' },
          el('span', { class: 'mono', title: f.path }, display(f.path)),
          changeBadge(f) ?? '',
          el('span', { class: 'meta' }, f.change === 'new' ? 'does not exist yet · proposed, editable' : 'current · proposed, editable'),
        ),
        merge,
      ),
    );
    const view = new DiffView(merge);
    view.show({ filePath: f.path, originalContent: f.originalContent, newContent: f.newContent },
      { dark: darkQuery.matches, narrow: narrowQuery.matches });
    changeViews.push({ path: f.path, view });
  }
}

function renderReview() {
  const diff = state.selected ? state.diffs.get(state.selected) : null;
  const change = !diff && state.selected ? state.changes.get(state.selected) : null;
  $('review-empty').hidden = !!(diff || change);
  $('review-main').hidden = !(diff || change);
  $('labels').hidden = !!change;
  $('merge').hidden = !!change;
  $('change-files').hidden = !change;
  if (!diff) {
    if (shownDiff) diffView.clear();
    shownDiff = null;
  }
  if (!change && shownChange) clearChange();
  if (change) {
    if (shownChange !== change) showChange(change);
    $('review-meta').replaceChildren(`Proposed by ${change.proposerName} · `, ...when(change.openedAt));
    updateActions();
    return;
  }
  if (!diff) return;
  if (shownDiff !== diff) {
    shownDiff = diff;
    $('review-main').dataset.id = diff.id;
    diffView.show(diff, { dark: darkQuery.matches, narrow: narrowQuery.matches });
    $('review-path').replaceChildren(display(diff.filePath), changeBadge(diff) ?? '');
    $('review-path').title = diff.filePath;
    $('label-current').textContent = diff.change === 'new' ? 'Current file (does not exist yet)' : 'Current file';
  }
  $('review-meta').replaceChildren(`Proposed by ${clientLabel(diff)} · `, ...when(diff.openedAt));
  updateActions();
}

function render() {
  renderDiffList();
  renderConnection();
  renderReview();
}

let busy = false;
function updateActions() {
  const disabled = busy || !state.live || !state.selected;
  $('accept').disabled = disabled;
  $('reject').disabled = disabled;
}

let toastTimer;
function toast(text) {
  const t = $('toast');
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.hidden = true), 6000);
}

function select(id) {
  state.selected = id;
  render();
}

/** Keeps a selection: the current one if still pending, else the oldest diff or change. */
function reselect() {
  if (state.selected && (state.diffs.has(state.selected) || state.changes.has(state.selected))) return;
  const oldest = pendingItems()[0];
  state.selected = oldest ? oldest.id : null;
}

/** The pending diff for `filePath`, if any: there is at most one. */
function diffFor(filePath) {
  return [...state.diffs.values()].find((d) => d.filePath === filePath);
}

// ---- applying what the companion says ------------------------------------

function applyState(s) {
  state.roots = s.workspaceRoots ?? [];
  state.clients = new Map((s.clients ?? []).map((c) => [c.id, c]));
  state.context = s.context ?? null;
  state.features = s.features ?? [];
  state.diagnostics = new Map((s.diagnostics ?? []).map((f) => [f.path, f]));
  state.diffs = new Map((s.pendingDiffs ?? []).map((d) => [d.id, d]));
  state.changes = new Map((s.pendingChanges ?? []).map((c) => [c.id, c]));
  $('restart-workspace').textContent = state.roots[0] ?? 'the workspace';
  reselect();
  render();
}

const outcomeText = {
  closedByClient: 'The CLI closed the diff for',
  clientGone: 'The CLI that proposed this edit has left; nothing was written:',
  accepted: 'Accepted elsewhere:',
  rejected: 'Rejected elsewhere:',
  stopped: 'The companion stopped before an answer:',
};

const changeOutcomeText = {
  accepted: 'Accepted elsewhere:',
  rejected: 'Rejected or withdrawn elsewhere:',
  changedOnDisk: 'Files changed on disk since the proposal, so nothing was written:',
  stopped: 'The companion stopped before an answer:',
};

function applyEvent({ event, data }) {
  let payload;
  try {
    payload = JSON.parse(data);
  } catch {
    return;
  }
  switch (event) {
    case 'diffOpened': {
      const older = diffFor(payload.filePath);
      if (older && older.id !== payload.id) {
        state.diffs.delete(older.id);
        if (state.selected === older.id) followFile = payload.filePath;
      }
      state.diffs.set(payload.id, payload);
      if (followFile === payload.filePath) {
        followFile = null;
        state.selected = payload.id;
        toast(`Replaced by a newer proposal: the CLI changed its edit to ${display(payload.filePath)}.`);
      }
      if (!state.selected) state.selected = payload.id;
      break;
    }
    case 'diffClosed': {
      if (!state.diffs.delete(payload.id)) break;
      if (payload.outcome === 'replaced') {
        if (state.selected === payload.id) followFile = payload.filePath;
      } else if (!answeredHere.delete(payload.id) && outcomeText[payload.outcome]) {
        toast(`${outcomeText[payload.outcome]} ${display(payload.filePath)}`);
      }
      reselect();
      break;
    }
    case 'changeOpened':
      state.changes.set(payload.id, payload);
      if (!state.selected) state.selected = payload.id;
      break;
    case 'changeClosed': {
      const change = state.changes.get(payload.id);
      if (!change) break;
      state.changes.delete(payload.id);
      if (!answeredHere.delete(payload.id) && changeOutcomeText[payload.outcome]) {
        toast(`${changeOutcomeText[payload.outcome]} the change of ${change.files.length} files`);
      }
      reselect();
      break;
    }
    case 'clientConnected':
      state.clients.set(payload.id, payload);
      break;
    case 'clientDisconnected':
      state.clients.delete(payload.id);
      break;
    case 'context':
      state.context = payload;
      break;
    case 'openFile':
      // The page cannot move an editor; it tells the user where the CLI points.
      toast(`The CLI points at ${display(payload.path)}${payload.line ? ', line ' + payload.line : ''}`);
      return;
    case 'diagnostics':
      if (!state.features.includes('diagnostics')) state.features = [...state.features, 'diagnostics'];
      if (payload.total > 0) state.diagnostics.set(payload.path, payload);
      else state.diagnostics.delete(payload.path);
      break;
    default:
      return;
  }
  render();
}

// ---- accept / reject -----------------------------------------------------

/** Why an answer came too late, by the outcome the companion reports. */
const lateText = {
  replaced: 'Replaced by a newer proposal; nothing was accepted or rejected. The new proposal is on show:',
  accepted: 'No longer pending: it was already accepted for',
  rejected: 'No longer pending: it was already rejected for',
  closedByClient: 'No longer pending: the CLI closed the diff for',
  stopped: 'No longer pending: the companion stopped before an answer for',
};

/** After an answer, whatever it got: the next pending item on show, the buttons usable again. */
function settle() {
  busy = false;
  reselect();
  render();
}

/** Answers the change on show once for all of its files, with the text of each file the user edited. */
async function resolveChange(change, accept) {
  busy = true;
  updateActions();
  const edited = changeViews.filter(({ view }) => view.edited).map(({ path, view }) => ({ path, content: view.content }));
  const name = `the change of ${change.files.length} files`;
  answeredHere.add(change.id);
  try {
    if (accept) await api.acceptChange(change.id, edited);
    else await api.rejectChange(change.id);
    state.changes.delete(change.id);
    toast(`${accept ? 'Accepted' : 'Rejected'} ${name}.`);
  } catch (e) {
    answeredHere.delete(change.id);
    if (e instanceof AccessDenied) return denied();
    if (e.status === 409 || e.status === 404) {
      state.changes.delete(change.id);
      if (e.outcome === 'changedOnDisk') {
        toast(`Files changed on disk since the proposal, so nothing was written: ${e.changedOnDisk.map(display).join(', ')}`);
      } else if (e.status === 404) {
        toast(`${name}: no longer known to the companion; nothing was written.`);
      } else {
        toast(`${lateText[e.outcome] ?? 'No longer pending:'} ${name}`);
      }
    } else {
      toast(`Could not ${accept ? 'accept' : 'reject'} ${name}: ${e.message}`);
    }
  } finally {
    settle();
  }
}

async function resolve(accept) {
  const id = state.selected;
  const change = id && !busy && state.live ? state.changes.get(id) : null;
  if (change) return resolveChange(change, accept);
  const diff = id ? state.diffs.get(id) : null;
  if (!diff || busy || !state.live) return;
  busy = true;
  updateActions();
  const content = diffView.content;
  const name = display(diff.filePath);
  answeredHere.add(id);
  try {
    if (accept) await api.accept(id, content);
    else await api.reject(id);
    // Only a 204 gets here: the CLI will hear the answer.
    state.diffs.delete(id);
    toast(`${accept ? 'Accepted' : 'Rejected'} ${name}.`);
  } catch (e) {
    answeredHere.delete(id);
    if (e instanceof AccessDenied) return denied();
    if (e.status === 409 || e.status === 410 || e.status === 404) {
      state.diffs.delete(id);
      const newer = diffFor(diff.filePath);
      if (state.selected === id) {
        if (newer) state.selected = newer.id;
        else if (e.outcome === 'replaced') followFile = diff.filePath;
      }
      if (e.status === 410) toast(`The CLI that proposed this edit has left; nothing was written: ${name}`);
      else if (e.status === 404) toast(`${name}: this proposal is no longer known to the companion; nothing was written.`);
      else toast(`${lateText[e.outcome] ?? 'No longer pending:'} ${name}`);
    } else {
      toast(`Could not ${accept ? 'accept' : 'reject'} ${name}: ${e.message}`);
    }
  } finally {
    settle();
  }
}

function onKey(e) {
  if (!(e.ctrlKey || e.metaKey) || e.altKey || $('review-main').hidden) return;
  if (e.key === 'Enter' && !e.shiftKey) {
    e.preventDefault();
    e.stopPropagation();
    resolve(true);
  } else if (e.key === 'Backspace' && e.shiftKey) {
    e.preventDefault();
    e.stopPropagation();
    resolve(false);
  }
}

// ---- the live connection -------------------------------------------------

let api;
let stopped = false;
let retryNow = () => {};

function denied() {
  stopped = true;
  state.live = false;
  sessionStorage.removeItem(TOKEN_KEY);
  gate(
    'The companion refused this page’s access token',
    'This address belongs to an earlier companion4j: a restarted companion has a new token. ' +
      'Run `companion4j open` in the workspace to open the page of the one running now.',
  );
}

async function session() {
  const abort = new AbortController();
  try {
    const body = await api.stream(abort.signal);
    const pending = [];
    let ready = false;
    const reading = (async () => {
      for await (const ev of readEvents(body)) {
        if (ready) applyEvent(ev);
        else pending.push(ev);
      }
    })();
    reading.catch(() => {});
    // Events that arrive while the snapshot loads are replayed after it; each
    // one sets or removes a whole entry, so replaying them is safe.
    const snapshot = await api.state();
    applyState(snapshot);
    for (const ev of pending) applyEvent(ev);
    ready = true;
    state.live = true;
    $('restart-hint').hidden = true;
    setStatus('live', 'Connected');
    await reading;
  } finally {
    abort.abort();
  }
}

async function connectLoop() {
  let delay = 1;
  let failures = 0;
  while (!stopped) {
    try {
      await session();
      delay = 1;
      failures = 0;
    } catch (e) {
      if (e instanceof AccessDenied) return denied();
    }
    state.live = false;
    failures++;
    // One failed reconnect is a blip; two mean the companion is likely gone, and a restarted one
    // has another port and token, which this page cannot learn.
    $('restart-hint').hidden = failures < 2;
    for (let left = delay; left > 0 && !stopped; left--) {
      setStatus('retrying', `Disconnected, retrying in ${left} s`);
      const skipped = await new Promise((done) => {
        const timer = setTimeout(() => done(false), 1000);
        retryNow = () => {
          clearTimeout(timer);
          done(true);
        };
      });
      if (skipped) break;
    }
    setStatus('connecting', 'Reconnecting…');
    delay = Math.min(delay * 2, 10);
  }
}

function start() {
  const token = takeToken();
  darkQuery.addEventListener('change', () => {
    diffView.setDark(darkQuery.matches);
    for (const { view } of changeViews) view.setDark(darkQuery.matches);
  });
  narrowQuery.addEventListener('change', () => {
    diffView.setNarrow(narrowQuery.matches);
    for (const { view } of changeViews) view.setNarrow(narrowQuery.matches);
  });
  if (navigator.platform.startsWith('Mac')) for (const k of document.querySelectorAll('kbd.mod')) k.textContent = '⌘';
  $('accept').addEventListener('click', () => resolve(true));
  $('reject').addEventListener('click', () => resolve(false));
  $('retry-now').addEventListener('click', () => retryNow());
  document.addEventListener('keydown', onKey, true);
  setInterval(tickAgo, AGO_TICK_MS);
  if (!token) {
    gate(
      'This page needs its access token',
      'Open the review page with the address that companion4j printed when it started ' +
        '(it ends in #token=…), or start it with: companion4j serve --open',
    );
    return;
  }
  api = new Api(token);
  render();
  connectLoop();
  new ChatPanel(api).start().catch(() => {});
}

start();
