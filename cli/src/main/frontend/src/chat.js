// The chat panel: the conversations the companion keeps, with the qwen serve daemon (/chat) and
// with an ACP agent it started (/chat/acp); the page shows one at a time and follows both.
// The page talks only to the companion's chat routes, with the page's token; the daemon's
// address and token and the agent's environment never reach it (the state names the daemon by
// host and port, the agent by its program's name).
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

/**
 * What decides whether an entry's node is still right: streamed text only grows, so its length
 * tells a new chunk; a tool call changes as a whole.
 */
function signature(e) {
  if (e.type === 'toolCall') return JSON.stringify(e);
  return `${e.type}|${e.streaming ?? ''}|${e.level ?? ''}|${(e.text ?? '').length}`;
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

/** One path's conversation: its state, followed from its event stream, and its rendered nodes. */
class Conversation {
  base;
  status;
  /** Entry nodes by id with the signature they were made from: a finished entry is made once. */
  nodes = new Map();
  plan = { key: '', node: null };

  constructor(base, status) {
    this.base = base;
    this.status = status;
  }
}

const PATHS = [
  { base: '/chat', label: (s) => `qwen serve (${s.daemon})` },
  { base: '/chat/acp', label: (s) => `${s.agent} (ACP)` },
];

export class ChatPanel {
  #api;
  /** The configured paths' conversations; `#shown` is the one on screen. */
  #conversations = [];
  #shown = null;
  /** Permission cards by request id: kept while pending, so their diff views survive updates. */
  #cards = new Map();

  constructor(api) {
    this.#api = api;
  }

  /** Shows the panel when the companion has a chat on either path; follows each until the page closes. */
  async start() {
    for (const { base } of PATHS) {
      let state;
      try {
        state = await this.#api.chatState(base);
      } catch {
        continue;
      }
      if (state.configured) this.#conversations.push(new Conversation(base, state));
    }
    if (!this.#conversations.length) return;
    this.#pathChoices();
    this.#show(this.#conversations[0]);
    document.body.dataset.chat = 'on';
    $('chat').hidden = false;
    $('chat-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      this.#send();
    });
    const input = $('chat-input');
    input.addEventListener('keydown', (ev) => {
      if (ev.key === 'Tab' && !ev.shiftKey && !$('chat-suggest').hidden) {
        ev.preventDefault();
        this.#complete($('chat-suggest').firstElementChild.dataset.name);
      } else if (ev.key === 'Enter' && !ev.shiftKey) {
        ev.preventDefault();
        this.#send();
      }
    });
    input.addEventListener('input', () => this.#suggest());
    $('chat-cancel').addEventListener('click', () => this.#post('/cancel', {}));
    $('chat-reconnect').addEventListener('click', () => this.#post('/reconnect', {}));
    $('chat-path').addEventListener('change', (ev) => {
      this.#show(this.#conversations.find((c) => c.base === ev.target.value));
    });
    const sessions = $('chat-session');
    // The list is read when the user opens it: sessions come and go with other clients.
    sessions.addEventListener('focus', () => this.#listSessions());
    sessions.addEventListener('change', () => {
      const id = sessions.value;
      this.#post(id === 'new' ? '/new' : '/attach', id === 'new' ? {} : { sessionId: id });
      sessions.blur();
    });
    $('chat-model').addEventListener('change', (ev) => {
      const modelId = ev.target.value.trim();
      if (modelId) this.#post('/model', { modelId });
      ev.target.blur();
    });
    $('chat-mode-select').addEventListener('change', (ev) => {
      this.#post('/mode', { modeId: ev.target.value });
      ev.target.blur();
    });
    await Promise.all(this.#conversations.map((c) => this.#follow(c)));
  }

  async #follow(conversation) {
    for (;;) {
      try {
        const body = await this.#api.chatStream(conversation.base);
        this.#update(conversation, await this.#api.chatState(conversation.base));
        for await (const ev of readEvents(body)) {
          if (ev.event === 'chat') this.#update(conversation, JSON.parse(ev.data));
        }
      } catch {
        // The companion went away for a moment; the review's own loop says so.
      }
      await new Promise((done) => setTimeout(done, 2000));
    }
  }

  #update(conversation, status) {
    conversation.status = status;
    if (conversation === this.#shown) this.#render(status);
    this.#pathChoices();
  }

  /** The conversation selector, shown when both paths have a chat. */
  #pathChoices() {
    const pick = $('chat-path');
    $('chat-path-pick').hidden = this.#conversations.length < 2;
    if (document.activeElement === pick) return;
    pick.replaceChildren(...this.#conversations.map((c) =>
      el('option', { value: c.base }, PATHS.find((p) => p.base === c.base).label(c.status))));
    if (this.#shown) pick.value = this.#shown.base;
  }

  #show(conversation) {
    if (this.#shown === conversation) return;
    this.#shown = conversation;
    for (const card of this.#cards.values()) card.views.forEach((v) => v.clear());
    this.#cards.clear();
    $('chat-log').replaceChildren();
    $('chat-error').hidden = true;
    this.#render(conversation.status);
    $('chat-log').scrollTop = $('chat-log').scrollHeight;
  }

  async #listSessions() {
    let list = [];
    try {
      list = await this.#api.chatSessions(this.#shown.base);
    } catch (e) {
      $('chat-error').textContent = e.message;
      $('chat-error').hidden = false;
    }
    this.#sessionChoices(list);
  }

  /** The session picker: a new session, this one, and the workspace's others. */
  #sessionChoices(list) {
    const current = this.#shown.status?.sessionId ?? '';
    const label = (s) => `${s.displayName || s.sessionId.slice(0, 8)}${s.clientCount ? ` · ${s.clientCount} attached` : ''}`;
    const others = list.filter((s) => s.sessionId !== current);
    $('chat-session').replaceChildren(
      ...(current ? [el('option', { value: current }, 'This session')] : []),
      el('option', { value: 'new' }, 'New session'),
      ...others.map((s) => el('option', { value: s.sessionId }, label(s))));
    $('chat-session').value = current || 'new';
  }

  /** The agent's commands that start with what was typed after a leading slash. */
  #suggest() {
    const text = $('chat-input').value;
    const commands = this.#shown.status.commands ?? [];
    const typed = /^\/(\S*)$/.exec(text);
    const matches = typed ? commands.filter((c) => c.name.startsWith(typed[1])) : [];
    $('chat-suggest').replaceChildren(...matches.map((c) =>
      el('button', { type: 'button', role: 'option', 'data-name': c.name, onclick: () => this.#complete(c.name) },
        `/${c.name}${c.hint ? ` ${c.hint}` : ''}`, el('span', { class: 'meta' }, c.description ? ` — ${c.description}` : ''))));
    $('chat-suggest').hidden = matches.length === 0;
  }

  #complete(name) {
    const input = $('chat-input');
    input.value = `/${name} `;
    $('chat-suggest').hidden = true;
    input.focus();
  }

  async #send() {
    const input = $('chat-input');
    const text = input.value.trim();
    if (!text) return;
    if (await this.#post('/prompt', { text })) {
      input.value = '';
      $('chat-suggest').hidden = true;
    }
  }

  /** Sends an intent to the shown conversation's path. */
  async #post(route, body) {
    try {
      await this.#api.chat(this.#shown.base + route, body);
      $('chat-error').hidden = true;
      return true;
    } catch (e) {
      $('chat-error').textContent = e.message;
      $('chat-error').hidden = false;
      return false;
    }
  }

  #render(status) {
    const shown = this.#shown;
    const c = status.conversation;
    const acp = status.path === 'acp';
    $('chat-kind').textContent = acp ? `${status.agent} over ACP` : 'qwen serve';
    $('chat-where-lead').textContent = acp ? 'here, in' : 'on';
    $('chat-where').textContent = acp ? status.workspace : status.daemon + (status.workspace ? ` · ${status.workspace}` : '');
    $('chat-where-note').textContent = acp
      ? 'Its file writes come to this page for review, unless its mode lets it edit without asking.'
      : "Its files, tools and credentials are that host's, not this machine's.";
    const state = c ? c.state : 'none';
    $('chat-state').textContent = status.problem || (c ? { connected: 'Connected', reconnecting: 'Reconnecting…',
      died: `Disconnected: ${c.stateReason}`, closed: 'Session closed' }[state] : 'Connecting…');
    $('chat').dataset.state = status.problem ? 'problem' : state;
    $('chat').dataset.path = acp ? 'acp' : 'daemon';
    $('chat-reconnect').hidden = !(status.problem || state === 'died' || state === 'closed');
    const modes = status.modes ?? [];
    const mode = c ? c.approvalMode : '';
    const described = MODES[mode] ?? modes.find((m) => m.id === mode)?.description ?? '';
    $('chat-mode').textContent = mode ? `${mode}: ${described}` : '';
    const modePick = $('chat-mode-select');
    $('chat-mode-pick').hidden = modes.length === 0;
    if (document.activeElement !== modePick) {
      modePick.replaceChildren(...modes.map((m) => el('option', { value: m.id, title: m.description }, m.name || m.id)));
      modePick.value = mode;
    }
    if (document.activeElement !== $('chat-session') && $('chat-session').value !== (status.sessionId || 'new')) {
      this.#sessionChoices([]);
    }
    const model = $('chat-model');
    const current = c ? c.modelName || c.modelId : '';
    if (document.activeElement !== model) model.value = current;
    $('chat-models').replaceChildren(...status.models.map((m) => el('option', { value: m })));
    $('chat-cancel').hidden = !(c && c.turnRunning);
    const log = $('chat-log');
    // Follow the conversation unless the user scrolled up to read; a question always comes into view.
    const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 40 || (c && c.permissions.length > 0);
    const wanted = c ? this.#entryNodes(shown, c.entries) : [];
    if (c && c.plan.length) wanted.push(this.#planNode(shown, c.plan));
    const pending = c ? c.permissions : [];
    for (const [id, card] of this.#cards) {
      if (!pending.some((p) => p.requestId === id)) {
        card.views.forEach((v) => v.clear());
        this.#cards.delete(id);
      }
    }
    for (const p of pending) {
      if (!this.#cards.has(p.requestId)) this.#cards.set(p.requestId, p.questions.length ? this.#question(p) : this.#permission(p));
      wanted.push(this.#cards.get(p.requestId).node);
    }
    place(log, wanted);
    if (atEnd) log.scrollTop = log.scrollHeight;
  }

  /** Each entry's node: made anew only when the entry changed, so a chunk costs its own entry. */
  #entryNodes(conversation, entries) {
    const kept = new Map();
    const nodes = entries.map((e) => {
      const sig = signature(e);
      let made = conversation.nodes.get(e.id);
      if (!made || made.sig !== sig) made = { sig, node: entry(e) };
      kept.set(e.id, made);
      return made.node;
    });
    conversation.nodes = kept;
    return nodes;
  }

  #planNode(conversation, plan) {
    const key = JSON.stringify(plan);
    if (conversation.plan.key !== key) {
      conversation.plan = { key, node: el('ol', { class: 'plan' }, ...plan.map((p) => el('li', { 'data-status': p.status }, p.content))) };
    }
    return conversation.plan.node;
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
          onclick: () => this.#post(`/permissions/${encodeURIComponent(p.requestId)}`, { optionId: o.optionId }) },
        o.name))));
    return { node, views };
  }

  /**
   * A card for the agent's questions: each with its options (check boxes where it takes several)
   * and a field for the user's own answer, which for a single choice is the answer when filled.
   * Submit sends one answer per question; the agent's other options (Cancel) decline.
   */
  #question(p) {
    const url = `/permissions/${encodeURIComponent(p.requestId)}`;
    const items = p.questions.map((q, i) => {
      const name = `${p.requestId}-q${i}`;
      const choices = q.options.map((o) =>
        el('label', { class: 'question-option' },
          el('input', { type: q.multiSelect ? 'checkbox' : 'radio', name, value: o.label }),
          ` ${o.label}`, o.description ? el('span', { class: 'meta' }, ` — ${o.description}`) : null));
      const own = el('input', { type: 'text', class: 'question-own', 'aria-label': `Your own answer: ${q.header}`,
        placeholder: q.multiSelect ? 'Add your own' : 'Or type your own answer' });
      const node = el('fieldset', { class: 'question-item' },
        el('legend', {}, q.header), el('div', { class: 'question-text' }, q.question), ...choices, own);
      const answer = () => {
        const picked = [...node.querySelectorAll('input:checked')].map((c) => c.value);
        const typed = own.value.trim();
        if (q.multiSelect) return [...picked, ...(typed ? [typed] : [])].join(', ');
        return typed || picked[0] || '';
      };
      return { node, answer };
    });
    const missing = el('div', { class: 'meta question-missing', hidden: '' }, 'Answer each question first.');
    const submit = () => {
      const answers = items.map((it) => it.answer());
      missing.hidden = answers.every((a) => a !== '');
      if (missing.hidden) this.#post(url, { answers });
    };
    const node = el('div', { class: 'permission question', role: 'group', 'aria-label': `Question: ${p.title}` },
      el('div', { class: 'permission-title' }, p.title || 'The agent asks'),
      ...items.map((it) => it.node),
      missing,
      el('div', { class: 'permission-options' }, ...p.options.map((o) => o.kind === 'allow_once'
        ? el('button', { type: 'button', class: 'btn primary', 'data-kind': o.kind, onclick: submit }, o.name)
        : el('button', { type: 'button', class: 'btn', 'data-kind': o.kind,
          onclick: () => this.#post(url, { optionId: o.optionId }) }, o.name))));
    return { node, views: [] };
  }
}

/** Makes `parent`'s children exactly `nodes`, moving only what is out of place. */
function place(parent, nodes) {
  let at = parent.firstChild;
  for (const node of nodes) {
    if (node !== at) parent.insertBefore(node, at);
    else at = at.nextSibling;
  }
  while (at) {
    const next = at.nextSibling;
    at.remove();
    at = next;
  }
}
