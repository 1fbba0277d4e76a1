// The TypeScript side of the daemon client benchmark: the official @qwen-code/sdk daemon client
// (pinned in test-peers/package.json), measured the way DaemonBenchmark measures the Java client.
// Prints one JSON line. DaemonBenchmark starts it; it is not meant to be run by hand.
//
//   node bench.mjs ttfc   <daemonUrl> <workspace> <prompts>
//   node bench.mjs live   <daemonUrl> <workspace> <chunks>
//   node bench.mjs replay <daemonUrl> <workspace> <repeats>
import { performance } from 'node:perf_hooks';
import { DaemonClient, DaemonSessionClient } from '@qwen-code/sdk/daemon';

const [mode, baseUrl, workspaceCwd, countArg] = process.argv.slice(2);
const client = new DaemonClient({ baseUrl });

const isText = (event) =>
  event.type === 'session_update' &&
  event.data?.update?.sessionUpdate === 'agent_message_chunk' &&
  Boolean(event.data.update.content?.text);
const isTurnEnd = (event) => event.type === 'turn_complete' || event.type === 'turn_error';

// Reads a session's events in the background and passes each, with its arrival time, to onEvent.
function subscribe(session, onEvent) {
  const abort = new AbortController();
  // Replaying from 0 on a fresh session closes the gap between subscribing and prompting.
  const events = session.events({ lastEventId: 0, signal: abort.signal });
  const done = (async () => {
    try {
      for await (const event of events) onEvent(event, performance.now());
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
  })();
  return async () => {
    abort.abort();
    await done;
  };
}

async function newSession() {
  return DaemonSessionClient.createOrAttach(client, { workspaceCwd, sessionScope: 'thread' });
}

async function ttfc(prompts) {
  const session = await newSession();
  const firstText = new Map();
  const ended = new Map();
  let wake = () => {};
  const stop = subscribe(session, (event, at) => {
    if (!event.promptId) return;
    if (isText(event) && !firstText.has(event.promptId)) firstText.set(event.promptId, at);
    if (isTurnEnd(event)) {
      ended.set(event.promptId, at);
      wake();
    }
  });
  const samples = [];
  for (let i = 0; i < prompts; i++) {
    const start = performance.now();
    const { promptId } = await session.submitPrompt({ prompt: [{ type: 'text', text: 'say hello' }] });
    while (!ended.has(promptId)) await new Promise((resolve) => { wake = resolve; });
    samples.push(firstText.get(promptId) - start);
  }
  await stop();
  await session.detach();
  return { ttfcMs: samples };
}

async function live(chunks) {
  // The session is new and runs this one prompt, so every answer chunk on it belongs to the prompt.
  const session = await newSession();
  let first;
  let last;
  let count = 0;
  let wake = () => {};
  const stop = subscribe(session, (event, at) => {
    if (isText(event)) {
      if (first === undefined) first = at;
      count++;
    }
    if (isTurnEnd(event)) {
      last = at;
      wake();
    }
  });
  const ended = new Promise((resolve) => { wake = resolve; });
  await session.submitPrompt({ prompt: [{ type: 'text', text: `[[count ${chunks}]]` }] });
  await ended;
  await stop();
  await session.detach();
  return { chunks: count, ms: last - first };
}

// Replays the shared session's history several times in this one process, so later runs are warm.
async function replay(repeats) {
  const runs = [];
  for (let i = 0; i < repeats; i++) {
    const session = await DaemonSessionClient.createOrAttach(client, { workspaceCwd });
    const start = performance.now();
    let frames = 0;
    for await (const event of session.events({ lastEventId: 0 })) {
      frames++;
      if (event.type === 'replay_complete') break;
    }
    runs.push({ frames, ms: performance.now() - start });
    await session.detach();
  }
  return { runs };
}

const modes = { ttfc, live, replay };
if (!modes[mode]) throw new Error(`unknown mode ${mode}`);
console.log(JSON.stringify(await modes[mode](Number(countArg))));
process.exit(0);
