// The chat panel: a conversation with the qwen serve daemon that the companion keeps.
// The page talks only to the companion's /chat routes, with the page's token; the daemon's
// address and token never reach it (the state names the daemon by host and port).
import { DiffView } from './diffview.js';
import { renderMarkdown } from './markdown.js';
import { readEvents } from './sse.js';

const $ = (id) => document.getElementById(id);

const MODES = {
  plan: 'plans only, changes nothing',
  default: 'asks before edits and commands',
  'auto-edit': 'edits files without asking, asks before commands',
  auto: 'decides per call, edits the workspace without asking',
  yolo: 'runs everything without asking',
};

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function markdown(text) {
  return el('div', { class: 'md' }, renderMarkdown(text));
}

function entry(e) {
  switch (e.type) {
    case 'user':
      return el('div', { class: 'msg user' }, e.text);
    case 'assistant': {
      const node = el('div', { class: 'msg assistant' }, markdown(e.text));
      if (e.streaming) node.classList.add('streaming');
      return node;
    }
    case 'thought':
      return el('details', { class: 'thought' }, el('summary', {}, e.streaming ? 'Thinking…' : 'Thought'), markdown(e.text));
    case 'toolCall':
      return el('div', { class: 'tool', 'data-status': e.status },
        el('span', { class: 'tool-status' }, e.status || 'pending'),
        el('span', { class: 'tool-title' }, e.title || e.kind || 'tool'),
        e.locations.length ? el('div', { class: 'meta' }, e.locations.join(', ')) : null,
        e.text ? el('pre', { class: 'tool-text' }, e.text) : null);
    case 'notice':
      return el('div', { class: `notice ${e.level}` }, e.text);
    default:
      return el('div', { class: 'notice info' }, `This page cannot show a ${e.type} entry.`);
  }
}

const darkQuery = matchMedia('(prefers-color-scheme: dark)');

export class ChatPanel {
  #api;
  #status = null;
  /** Permission cards by request id: kept while pending, so their diff views survive updates. */
  #cards = new Map();

  constructor(api) {
    this.#api = api;
  }

  /** Shows the panel when the companion has a chat; follows it until the page closes. */
  async start() {
    const state = await this.#api.chatState();
    if (!state.configured) return;
    this.#render(state);
    document.body.dataset.chat = 'on';
    $('chat').hidden = false;
    $('chat-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      this.#send();
    });
    $('chat-input').addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' && !ev.shiftKey) {
        ev.preventDefault();
        this.#send();
      }
    });
    $('chat-cancel').addEventListener('click', () => this.#post('/chat/cancel', {}));
    $('chat-reconnect').addEventListener('click', () => this.#post('/chat/reconnect', {}));
    const sessions = $('chat-session');
    // The list is read when the user opens it: sessions come and go with other clients.
    sessions.addEventListener('focus', () => this.#listSessions());
    sessions.addEventListener('change', () => {
      const id = sessions.value;
      this.#post(id === 'new' ? '/chat/new' : '/chat/attach', id === 'new' ? {} : { sessionId: id });
      sessions.blur();
    });
    $('chat-model').addEventListener('change', (ev) => {
      const modelId = ev.target.value.trim();
      if (modelId) this.#post('/chat/model', { modelId });
      ev.target.blur();
    });
    for (;;) {
      try {
        const body = await this.#api.chatStream();
        this.#render(await this.#api.chatState());
        for await (const ev of readEvents(body)) {
          if (ev.event === 'chat') this.#render(JSON.parse(ev.data));
        }
      } catch {
        // The companion went away for a moment; the review's own loop says so.
      }
      await new Promise((done) => setTimeout(done, 2000));
    }
  }

  async #listSessions() {
    let list = [];
    try {
      list = await this.#api.chatSessions();
    } catch (e) {
      $('chat-error').textContent = e.message;
      $('chat-error').hidden = false;
    }
    this.#sessionChoices(list);
  }

  /** The session picker: a new session, this one, and the workspace's others. */
  #sessionChoices(list) {
    const current = this.#status?.sessionId ?? '';
    const label = (s) => `${s.displayName || s.sessionId.slice(0, 8)}${s.clientCount ? ` · ${s.clientCount} attached` : ''}`;
    const others = list.filter((s) => s.sessionId !== current);
    $('chat-session').replaceChildren(
      ...(current ? [el('option', { value: current }, 'This session')] : []),
      el('option', { value: 'new' }, 'New session'),
      ...others.map((s) => el('option', { value: s.sessionId }, label(s))));
    $('chat-session').value = current || 'new';
  }

  async #send() {
    const input = $('chat-input');
    const text = input.value.trim();
    if (!text) return;
    if (await this.#post('/chat/prompt', { text })) input.value = '';
  }

  async #post(path, body) {
    try {
      await this.#api.chat(path, body);
      $('chat-error').hidden = true;
      return true;
    } catch (e) {
      $('chat-error').textContent = e.message;
      $('chat-error').hidden = false;
      return false;
    }
  }

  #render(status) {
    this.#status = status;
    const c = status.conversation;
    $('chat-where').textContent = status.daemon + (status.workspace ? ` · ${status.workspace}` : '');
    const state = c ? c.state : 'none';
    $('chat-state').textContent = status.problem || (c ? { connected: 'Connected', reconnecting: 'Reconnecting…',
      died: `Disconnected: ${c.stateReason}`, closed: 'Session closed' }[state] : 'Connecting…');
    $('chat').dataset.state = status.problem ? 'problem' : state;
    $('chat-reconnect').hidden = !(status.problem || state === 'died' || state === 'closed');
    $('chat-mode').textContent = c && c.approvalMode ? `${c.approvalMode}: ${MODES[c.approvalMode] ?? ''}` : '';
    if (document.activeElement !== $('chat-session') && $('chat-session').value !== (status.sessionId || 'new')) {
      this.#sessionChoices([]);
    }
    const model = $('chat-model');
    const current = c ? c.modelName : '';
    if (document.activeElement !== model) model.value = current;
    $('chat-models').replaceChildren(...status.models.map((m) => el('option', { value: m })));
    $('chat-cancel').hidden = !(c && c.turnRunning);
    const log = $('chat-log');
    // Follow the conversation unless the user scrolled up to read; a question always comes into view.
    const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 40 || (c && c.permissions.length > 0);
    log.replaceChildren(...(c ? c.entries.map(entry) : []));
    if (c && c.plan.length) {
      log.append(el('ol', { class: 'plan' }, ...c.plan.map((p) => el('li', { 'data-status': p.status }, p.content))));
    }
    const pending = c ? c.permissions : [];
    for (const [id, card] of this.#cards) {
      if (!pending.some((p) => p.requestId === id)) {
        card.views.forEach((v) => v.clear());
        this.#cards.delete(id);
      }
    }
    for (const p of pending) {
      if (!this.#cards.has(p.requestId)) this.#cards.set(p.requestId, this.#permission(p));
      log.append(this.#cards.get(p.requestId).node);
    }
    if (atEnd) log.scrollTop = log.scrollHeight;
  }

  /** A card for a permission request, with each file change it would make as a read-only diff. */
  #permission(p) {
    const views = [];
    const diffs = p.diffs.map((d) => {
      const host = el('div', { class: 'permission-diff merge' });
      const view = new DiffView(host, { readOnly: true });
      view.show({ filePath: d.path, originalContent: d.oldText, newContent: d.newText },
        { dark: darkQuery.matches, narrow: true });
      views.push(view);
      return el('div', {}, el('div', { class: 'meta' }, d.oldText === '' ? `New file ${d.path}` : d.path), host);
    });
    const node = el('div', { class: 'permission', role: 'group', 'aria-label': `Permission: ${p.title}` },
      el('div', { class: 'permission-title' }, p.title || p.kind),
      p.locations.length && !p.diffs.length ? el('div', { class: 'meta' }, p.locations.join(', ')) : null,
      ...diffs,
      el('div', { class: 'permission-options' }, ...p.options.map((o) =>
        // Only "once" is the primary choice: "always" also changes what the agent may do from now on.
        el('button', { type: 'button', class: o.kind === 'allow_once' ? 'btn primary' : 'btn', 'data-kind': o.kind,
          title: o.kind === 'allow_always' ? 'Allows this and later calls like it without asking' : o.name,
          onclick: () => this.#post(`/chat/permissions/${encodeURIComponent(p.requestId)}`, { optionId: o.optionId }) },
        o.name))));
    return { node, views };
  }
}
