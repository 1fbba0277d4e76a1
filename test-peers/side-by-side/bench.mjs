#!/usr/bin/env node
// Companion4J against the reference companion (test-peers/reference-companion: Node, Express and
// the MCP TypeScript SDK's server transport, as the official VS Code companions are built, once on
// each official companion's SDK), side by side in one run, measured the way the CLIs see a
// companion: with the SDK clients they bundle, and with a raw HTTP/1.1 client that leaves only the
// server's cost. Run by `scripts/benchmark.sh side-by-side`, which builds the jar first.
//
//   node bench.mjs [rounds] [--regime cold|steady|both]   (default 6 rounds, both regimes;
//                                                          about two and a half minutes a round)
//
// Two regimes, because users meet both. The cold one is a session's first minute: a companion just
// started as its users start it, 20 clients connecting at once, then the first 200 openDiff calls
// with no warm-up but what those handshakes did. The steady one is a companion that has served
// thousands of calls. Starts alternate between the companions (A B C A B C ...), and so do the
// rounds, each of which starts every companion for each cold session, for the steady measures and
// for the load case: drift on the machine hits all alike. Prints one Markdown table per regime with
// each figure per companion and the ratio Companion4J / reference.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { editorApi, rawClient, sdkClient } from './clients.mjs';
import { companion4j, reference, start } from './companions.mjs';

const COLD_STARTS = 10;
const COLD_CALLS = 200;
const COLD_DELIVERIES = 10;
const ACK_WARMUP = 1_000;
const ACK_SAMPLES = 1_500;
const CONTEXT_WARMUP = 10;
const CONTEXT_SAMPLES = 60;
const FAN_OUT_CLIENTS = 20;
const FAN_OUT_WARMUP = 5;
const FAN_OUT_SAMPLES = 30;
const LOAD_CLIENTS = 100;
const LOAD_SECONDS = 10;
const LOAD_WARMUP_EVENTS = 10;
const LOAD_ACK_INTERVAL_MS = 25;
const DEBOUNCE_MS = 50;
const DELIVERY_TIMEOUT_MS = 10_000;

const args = process.argv.slice(2);
const regimeAt = args.indexOf('--regime');
const regime = regimeAt >= 0 ? args.splice(regimeAt, 2)[1] : 'both';
if (!['cold', 'steady', 'both'].includes(regime)) {
  console.error(`--regime must be cold, steady or both, not ${regime}`);
  process.exit(64);
}
const rounds = Number(args[0] ?? 6);
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error(`rounds must be a whole number above 0, not ${args[0]}`);
  process.exit(64);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const testPeers = path.dirname(here);
const repoRoot = path.dirname(testPeers);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'side-by-side-'));

// Node 20's fetch hangs an abort listener per request on the SDK transport's signal and drops it
// only when the request is collected, so thousands of calls in a row warn of a leak that is none.
process.removeAllListeners('warning');
process.on('warning', (w) => w.name === 'MaxListenersExceededWarning' || console.error(w));

const qwenSdk = sdkClient('SDK 1.30.0 client (Qwen Code 0.24.4)', 'mcp-sdk-qwen');
const geminiSdk = sdkClient('SDK 1.23.0 client (Gemini CLI 0.61.0)', 'mcp-sdk-gemini');

/**
 * Samples per regime, measure and companion, in the order measures are first recorded. A latency
 * is reported as its p50 and p99; a figure taken once per start or round (cold start, connecting,
 * memory, rate) as the median over the starts or rounds.
 */
const COLD = new Map();
const STEADY = new Map();
const LATENCY = 'ms, p50 / p99';
const ONCE_MS = 'ms, median';
const ONCE_MIB = 'MiB, median';
function record(companion, measure, unit, value, samples = STEADY) {
  if (!samples.has(measure)) samples.set(measure, { unit, byCompanion: new Map() });
  const { byCompanion } = samples.get(measure);
  if (!byCompanion.has(companion)) byCompanion.set(companion, []);
  byCompanion.get(companion).push(value);
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function withTimeout(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), DELIVERY_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Context deliveries of one companion, matched by the cursor line each event carries. Every event
 * has a new line, so no update equals the one before and every one is published.
 */
class Deliveries {
  line = 0;
  waiting = new Map();

  /** The next event's line; `first` resolves at the first arrival, `all` with every arrival time. */
  expect(count) {
    const line = ++this.line;
    let first;
    const firstArrived = new Promise((resolve) => (first = resolve));
    const all = new Promise((resolve) => this.waiting.set(line, { count, times: [], first, resolve }));
    return { line, first: firstArrived, all: withTimeout(all, `context line ${line} at ${count} clients`) };
  }

  arrive(params, at) {
    const line = params.workspaceState?.openFiles?.[0]?.cursor?.line;
    const wait = this.waiting.get(line);
    if (!wait) return;
    wait.times.push(at);
    wait.first();
    if (wait.times.length === wait.count) {
      this.waiting.delete(line);
      wait.resolve(wait.times);
    }
  }
}

function cursorMove(c, line) {
  return { type: 'cursor', path: c.file, line, character: 1 };
}

/** Connects one client; resolves once the context sent when its stream opened has arrived. */
async function connect(client, c, deliveries) {
  let first;
  const opened = new Promise((resolve) => (first = resolve));
  const connection = await client.connect(c.port, c.token, (params, at) => {
    first();
    deliveries.arrive(params, at);
  });
  await withTimeout(opened, 'the first ide/contextUpdate');
  return connection;
}

function connectMany(client, c, deliveries, count) {
  return Promise.all(Array.from({ length: count }, () => connect(client, c, deliveries)));
}

/** Posts one cursor move; resolves with the milliseconds until each of `count` clients had it. */
async function deliver(c, editor, deliveries, count) {
  const { line, all } = deliveries.expect(count);
  const posted = performance.now();
  const [, times] = await Promise.all([editor.post(cursorMove(c, line)), all]);
  return times.map((at) => at - posted);
}

async function rss(c) {
  c.collectGarbage();
  await sleep(500);
  return c.rssMib();
}

async function latencies(name, c, client, editor, deliveries) {
  const connection = await connect(client, c, deliveries);
  for (let i = 0; i < ACK_WARMUP + ACK_SAMPLES; i++) {
    const sent = performance.now();
    await connection.openDiff(c.file, `proposal ${i}\n`);
    if (i >= ACK_WARMUP) record(name, `openDiff acknowledgement, ${client.label}`, LATENCY, performance.now() - sent);
  }
  for (let i = 0; i < CONTEXT_WARMUP + CONTEXT_SAMPLES; i++) {
    const [took] = await deliver(c, editor, deliveries, 1);
    if (i >= CONTEXT_WARMUP) record(name, `context delivery, editor event posted to ide/contextUpdate received, ${client.label}`, LATENCY, took);
  }
  await connection.close();
}

async function connectAndFanOut(name, c, client, editor, deliveries) {
  const began = performance.now();
  const connections = await connectMany(client, c, deliveries, FAN_OUT_CLIENTS);
  record(name, `connecting ${FAN_OUT_CLIENTS} clients at once, until each has its first context, ${client.label}`, ONCE_MS, performance.now() - began);
  for (let i = 0; i < FAN_OUT_WARMUP + FAN_OUT_SAMPLES; i++) {
    const took = await deliver(c, editor, deliveries, FAN_OUT_CLIENTS);
    if (i >= FAN_OUT_WARMUP) record(name, `fan-out of one context until all ${FAN_OUT_CLIENTS} clients have it, ${client.label}`, LATENCY, Math.max(...took));
  }
  return connections;
}

/**
 * 100 SDK clients receive a context update every 50 ms or, when the companion has not yet sent the
 * one before, as soon as it has (so the 50 ms debounce never merges two): close to 20 a second.
 * One of them calls openDiff every 25 ms meanwhile.
 */
async function load(name, c, connections, editor, deliveries) {
  const began = performance.now();
  const end = began + LOAD_SECONDS * 1000;
  let acks = 0;
  const acknowledging = (async () => {
    while (performance.now() < end) {
      const sent = performance.now();
      await connections[0].openDiff(c.file, `under load ${acks++}\n`);
      record(name, `under load: openDiff acknowledgement, ${qwenSdk.label}`, LATENCY, performance.now() - sent);
      await sleep(LOAD_ACK_INTERVAL_MS);
    }
  })();
  const deliveredAll = [];
  let events = 0;
  while (performance.now() < end) {
    const { line, first, all } = deliveries.expect(connections.length);
    const posted = performance.now();
    await Promise.all([editor.post(cursorMove(c, line)), withTimeout(first, `context line ${line}`)]);
    const counted = ++events > LOAD_WARMUP_EVENTS;
    deliveredAll.push(
      all.then((times) => {
        if (counted) {
          for (const at of times) record(name, `under load: context delivery to each of ${LOAD_CLIENTS} clients, ${qwenSdk.label}`, LATENCY, at - posted);
        }
      }),
    );
    const next = posted + DEBOUNCE_MS - performance.now();
    if (next > 0) await sleep(next);
  }
  await acknowledging;
  await Promise.all(deliveredAll);
  record(name, 'under load: context updates each client received per second', 'per second, median', (events * 1000) / (performance.now() - began));
}

/** The JVM the launcher chose, as `java -version` names it, once a Companion4J start has told. */
let java;

/** Runs `measure` on a companion of `kind` started for it, and stops it whatever happens. */
async function on(kind, dir, options, measure) {
  const c = await start(kind, dir, options);
  java ??= c.runtime();
  const deliveries = new Deliveries();
  const editor = editorApi(c.port, c.token);
  try {
    await measure(c, editor, deliveries);
  } catch (err) {
    throw new Error(`${kind.name}: ${err.message}\n${c.stderr()}`, { cause: err });
  } finally {
    editor.close();
    await c.stop();
  }
}

/**
 * A session's first minute, on a companion just started as its users start it: 20 clients of one
 * kind connect at once (what 20 CLIs starting together do), one of them makes the first 200
 * openDiff calls, then 10 context updates reach all 20, and memory is read with them connected.
 */
function firstMinute(name, client) {
  const cold = (measure, unit, value) => record(name, measure, unit, value, COLD);
  return async (c, editor, deliveries) => {
    const began = performance.now();
    const connections = await connectMany(client, c, deliveries, FAN_OUT_CLIENTS);
    cold(`connecting ${FAN_OUT_CLIENTS} clients at once right after the start, until each has its first context, ${client.label}`, ONCE_MS, performance.now() - began);
    for (let i = 0; i < COLD_CALLS; i++) {
      const sent = performance.now();
      await connections[0].openDiff(c.file, `proposal ${i}\n`);
      cold(`openDiff acknowledgement, the first ${COLD_CALLS} calls, ${client.label}`, LATENCY, performance.now() - sent);
    }
    for (let i = 0; i < COLD_DELIVERIES; i++) {
      for (const took of await deliver(c, editor, deliveries, FAN_OUT_CLIENTS)) {
        cold(`context delivery to each of ${FAN_OUT_CLIENTS} clients, the first ${COLD_DELIVERIES} updates, ${client.label}`, LATENCY, took);
      }
    }
    cold(`resident memory, ${FAN_OUT_CLIENTS} clients connected, ${client.label}`, ONCE_MIB, await rss(c));
    await Promise.all(connections.map((s) => s.close()));
  };
}

/**
 * Steady state, on a companion of its own: memory idle first, then the long latency series (1,000
 * calls to warm up), and only then connecting and fan-out, on the warmed process.
 */
function served(name) {
  return async (c, editor, deliveries) => {
    await sleep(1000);
    record(name, 'resident memory (VmRSS), idle', ONCE_MIB, await rss(c));
    for (const client of [qwenSdk, geminiSdk, rawClient]) {
      await latencies(name, c, client, editor, deliveries);
    }
    const sdk = await connectAndFanOut(name, c, qwenSdk, editor, deliveries);
    record(name, `resident memory, ${FAN_OUT_CLIENTS} SDK clients connected`, ONCE_MIB, await rss(c));
    await Promise.all(sdk.map((s) => s.close()));
    const raw = await connectAndFanOut(name, c, rawClient, editor, deliveries);
    await Promise.all(raw.map((r) => r.close()));
  };
}

/**
 * The load case, on a companion of its own: Companion4J's serve refuses a 33rd CLI session, so
 * this one is started with the cap raised; the reference has none.
 */
function loaded(name) {
  return async (c, editor, deliveries) => {
    const connections = await connectMany(qwenSdk, c, deliveries, FAN_OUT_CLIENTS);
    const with20 = await rss(c);
    connections.push(...(await connectMany(qwenSdk, c, deliveries, LOAD_CLIENTS - FAN_OUT_CLIENTS)));
    const with100 = await rss(c);
    record(name, `resident memory, ${LOAD_CLIENTS} SDK clients connected`, ONCE_MIB, with100);
    record(name, `memory per additional client, ${FAN_OUT_CLIENTS} to ${LOAD_CLIENTS} connected`, 'KiB, median', ((with100 - with20) * 1024) / (LOAD_CLIENTS - FAN_OUT_CLIENTS));
    await load(name, c, connections, editor, deliveries);
    await Promise.all(connections.map((s) => s.close()));
  };
}

function table(samples, kinds) {
  const [ours, ...references] = kinds.map((k) => k.name);
  const header = [`| measure | ${ours} |`, '|---|---|'];
  for (const r of references) {
    header[0] += ` ${r} | Companion4J / this |`;
    header[1] += '---|---|';
  }
  const rows = [];
  for (const [measure, { unit, byCompanion }] of samples) {
    const stats = unit === LATENCY ? [50, 99] : [50];
    const fmt = (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(unit === LATENCY || unit === ONCE_MS ? 2 : 1));
    const figures = (name) => stats.map((p) => fmt(percentile(byCompanion.get(name), p))).join(' / ');
    let row = `| ${measure} (${unit}) | ${figures(ours)} |`;
    for (const r of references) {
      const ratio = stats.map((p) => (percentile(byCompanion.get(ours), p) / percentile(byCompanion.get(r), p)).toFixed(2));
      row += ` ${figures(r)} | ${ratio.join(' / ')} |`;
    }
    rows.push(row);
  }
  return [...header, ...rows];
}

const kinds = [companion4j(repoRoot, scratch), reference(testPeers, 'qwen'), reference(testPeers, 'gemini')];
const cold = regime !== 'steady';
const steady = regime !== 'cold';
try {
  const loadBefore = os.loadavg()[0];
  for (const kind of kinds) kind.prepare();
  if (cold) {
    for (let i = 0; i < COLD_STARTS; i++) {
      for (const [k, kind] of kinds.entries()) {
        const c = await start(kind, path.join(scratch, `cold-${k}-${i}`));
        java ??= c.runtime();
        record(kind.name, 'cold start to the Qwen discovery file', ONCE_MS, c.coldStart.toFile, COLD);
        record(kind.name, 'cold start to the ready line on stdout', ONCE_MS, c.coldStart.toReady, COLD);
        record(kind.name, 'cold start to the first MCP initialize answered', ONCE_MS, c.coldStart.toInitialize, COLD);
        await c.stop();
      }
    }
  }
  for (let i = 0; i < rounds; i++) {
    for (const [k, kind] of kinds.entries()) {
      if (cold) {
        for (const [j, client] of [qwenSdk, geminiSdk].entries()) {
          await on(kind, path.join(scratch, `first-${k}-${i}-${j}`), {}, firstMinute(kind.name, client));
        }
      }
      if (steady) {
        await on(kind, path.join(scratch, `served-${k}-${i}`), {}, served(kind.name));
        await on(kind, path.join(scratch, `load-${k}-${i}`), { uncapped: true }, loaded(kind.name));
      }
      process.stderr.write(`round ${i + 1}/${rounds}: ${kind.name} done\n`);
    }
  }
  if (cold) {
    console.log(`Cold: the first minute after a start (${COLD_STARTS} starts; then per round and client a fresh start, ${FAN_OUT_CLIENTS} clients, ${COLD_CALLS} calls)`);
    console.log();
    for (const row of table(COLD, kinds)) console.log(row);
    console.log();
  }
  if (steady) {
    console.log(`Steady state (${ACK_WARMUP} calls to warm up before the timed ones)`);
    console.log();
    for (const row of table(STEADY, kinds)) console.log(row);
    console.log();
  }
  console.log(
    `${rounds} rounds; ${os.cpus().length} CPUs, load average ${loadBefore.toFixed(2)} before and ` +
      `${os.loadavg()[0].toFixed(2)} after; Node ${process.version}; ${java}. Context delivery counts from posting the editor ` +
      `event, so it includes the ${DEBOUNCE_MS} ms debounce.`,
  );
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
