// The companion's editor API, called with the page's bearer token.

/** The companion refused the token (401) or the request's origin (403). */
export class AccessDenied extends Error {
  constructor(status) {
    super(`the companion answered ${status}`);
    this.status = status;
  }
}

/**
 * A request the companion answered with an error other than 401/403; `outcome`
 * says how a diff or change ended when an answer came too late (409, 410), and
 * `changedOnDisk` which files ended a change so.
 */
export class ApiError extends Error {
  constructor(status, message, outcome, changedOnDisk) {
    super(message);
    this.status = status;
    this.outcome = outcome;
    this.changedOnDisk = changedOnDisk ?? [];
  }
}

export class Api {
  #token;

  constructor(token) {
    this.#token = token;
  }

  async #fetch(path, init = {}) {
    const res = await fetch(path, {
      ...init,
      cache: 'no-store',
      credentials: 'omit',
      headers: { Authorization: `Bearer ${this.#token}`, ...init.headers },
    });
    if (res.status === 401 || res.status === 403) throw new AccessDenied(res.status);
    if (!res.ok) {
      let message = `${res.status} ${res.statusText}`;
      let outcome;
      let changedOnDisk;
      try {
        const body = await res.json();
        message = body.error ?? message;
        outcome = body.outcome;
        changedOnDisk = body.changedOnDisk;
      } catch {
        // The body was not the API's JSON error; the status says enough.
      }
      throw new ApiError(res.status, message, outcome, changedOnDisk);
    }
    return res;
  }

  async state() {
    return (await this.#fetch('/editor/state')).json();
  }

  /** Opens the event stream; resolves once the companion has answered. */
  async stream(signal) {
    // The page is no editor: it says so, so that requests to open files are not counted as heard.
    const res = await this.#fetch('/editor/events/stream?client=review-page', {
      signal,
      headers: { Accept: 'text/event-stream' },
    });
    if (!res.body) throw new ApiError(res.status, 'the event stream has no body');
    return res.body;
  }

  /** Accepts diff `id` with `content` (null: as proposed); resolves only on 204. */
  async accept(id, content) {
    await this.#post(`/editor/diffs/${encodeURIComponent(id)}/accept`, content == null ? {} : { content });
  }

  async reject(id) {
    await this.#post(`/editor/diffs/${encodeURIComponent(id)}/reject`, {});
  }

  /**
   * Accepts change `id`; `files` lists the files the user edited as {path, content}, each its
   * whole text (the others as proposed). Resolves only on 204.
   */
  async acceptChange(id, files) {
    await this.#post(`/editor/changes/${encodeURIComponent(id)}/accept`, { files });
  }

  async rejectChange(id) {
    await this.#post(`/editor/changes/${encodeURIComponent(id)}/reject`, {});
  }

  /**
   * The state of the chat at `base` (`/chat`, the daemon path, or `/chat/acp`, the ACP path);
   * `configured` is false when the companion was started without that path's daemon or agent.
   */
  async chatState(base = '/chat') {
    return (await this.#fetch(`${base}/state`)).json();
  }

  /** The sessions a chat may attach to, most recent first. */
  async chatSessions(base = '/chat') {
    return (await this.#fetch(`${base}/sessions`)).json();
  }

  /** Opens the event stream of the chat at `base`. */
  async chatStream(base = '/chat') {
    const res = await this.#fetch(`${base}/events/stream`, { headers: { Accept: 'text/event-stream' } });
    if (!res.body) throw new ApiError(res.status, 'the chat stream has no body');
    return res.body;
  }

  /** Sends a chat intent (prompt, cancel, mode, model, reconnect, a permission answer). */
  async chat(path, body) {
    await this.#post(path, body);
  }

  async #post(path, body) {
    await this.#fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  }
}
