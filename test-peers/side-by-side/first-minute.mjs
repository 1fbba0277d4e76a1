#!/usr/bin/env node
// The first minute after a start, for the JVM's start-up choices: Companion4J's shaded jar under
// the JIT and cache variants below, beside the reference companion on both official stacks, each
// started fresh for every round, alternating. Per start: cold start to the ready line and to the
// first initialize, 20 SDK 1.30.0 clients connecting at once (until each has its first context),
// the first 200 openDiff round trips of one of them, and resident memory with the 20 connected
// after a full collection. Run by `scripts/benchmark.sh first-minute`, which builds the jar first.
//
//   node first-minute.mjs [rounds]      (default 5)

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { sdkClient } from './clients.mjs';
import { reference, start } from './companions.mjs';

const CLIENTS = 20;
const CALLS = 200;
const rounds = Number(process.argv[2] ?? 5);
const here = path.dirname(fileURLToPath(import.meta.url));
const testPeers = path.dirname(here);
const repoRoot = path.dirname(testPeers);
const jar = path.join(repoRoot, 'cli/target/companion4j.jar');
const jdk = process.env.COMPANION4J_JAVA ? path.dirname(process.env.COMPANION4J_JAVA) : newestJdk();
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'first-minute-'));
const launcherFlags = fs
  .readFileSync(path.join(repoRoot, 'cli/jvm.options'), 'utf8')
  .split('\n')
  .filter((l) => l && !l.startsWith('#'));
const C1 = '-XX:TieredStopAtLevel=1';
const SCALED = '-XX:CompileThresholdScaling=0.2';
const without = (...flags) => launcherFlags.filter((f) => !flags.includes(f));

process.removeAllListeners('warning');
process.on('warning', (w) => w.name === 'MaxListenersExceededWarning' || console.error(w));
const qwenSdk = sdkClient('SDK 1.30.0 client (Qwen Code 0.24.4)', 'mcp-sdk-qwen');

/** Each variant's flags; `cache` records an AOT cache with `selftest` under the same flags. */
const VARIANTS = [
  { name: 'the launcher: C1 only, CompileThresholdScaling=0.2, AOT cache', flags: launcherFlags, cache: true },
  { name: 'C1 only, usual thresholds, AOT cache', flags: without(SCALED), cache: true },
  { name: 'the launcher without its cache', flags: launcherFlags, cache: false },
  { name: 'tiered (C1 + C2), usual thresholds, AOT cache with profiles', flags: without(C1, SCALED), cache: true },
  { name: 'tiered, CompileThresholdScaling=0.2, AOT cache with profiles', flags: without(C1), cache: true },
];

function newestJdk() {
  const homes = fs.readdirSync('/usr/lib/jvm').map((d) => path.join('/usr/lib/jvm', d));
  const feature = (h) => Number((fs.readFileSync(path.join(h, 'release'), 'utf8').match(/JAVA_VERSION="(\d+)/) ?? [0, 0])[1]);
  const jdks = homes.filter((h) => fs.existsSync(path.join(h, 'release')) && fs.existsSync(path.join(h, 'bin/java')));
  return path.join(jdks.sort((a, b) => feature(b) - feature(a))[0], 'bin');
}

function companionVariant(variant, i) {
  const quiet = ['-Xlog:cds=off', '-Xlog:aot=off'];
  const cache = path.join(scratch, `variant-${i}.aot`);
  if (variant.cache) {
    execFileSync(path.join(jdk, 'java'), [...variant.flags, `-XX:AOTCacheOutput=${cache}`, ...quiet, '-jar', jar, 'selftest'], { stdio: 'ignore' });
  }
  return {
    name: variant.name,
    command: () => [path.join(jdk, 'java'), [...variant.flags, ...(variant.cache ? [`-XX:AOTCache=${cache}`, ...quiet] : []), '-jar', jar, 'serve']],
    collectGarbage: (pid) => execFileSync(path.join(jdk, 'jcmd'), [String(pid), 'GC.run'], { stdio: 'ignore' }),
  };
}

const samples = new Map();
function record(kind, measure, value) {
  if (!samples.has(measure)) samples.set(measure, new Map());
  const byKind = samples.get(measure);
  if (!byKind.has(kind)) byKind.set(kind, []);
  byKind.get(kind).push(value);
}
function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function measure(kind, dir) {
  const c = await start(kind, dir);
  try {
    record(kind.name, 'cold start to the ready line (ms)', c.coldStart.toReady);
    record(kind.name, 'cold start to the first initialize answered (ms)', c.coldStart.toInitialize);
    const began = performance.now();
    const connections = await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        let first;
        const context = new Promise((resolve) => (first = resolve));
        const connection = await qwenSdk.connect(c.port, c.token, () => first());
        await context;
        return connection;
      }),
    );
    record(kind.name, `connecting ${CLIENTS} clients at once (ms)`, performance.now() - began);
    const acks = [];
    for (let i = 0; i < CALLS; i++) {
      const sent = performance.now();
      await connections[0].openDiff(c.file, `proposal ${i}\n`);
      acks.push(performance.now() - sent);
    }
    record(kind.name, `openDiff acknowledgement p50 of the first ${CALLS} calls (ms)`, percentile(acks, 50));
    record(kind.name, `openDiff acknowledgement p99 of the first ${CALLS} calls (ms)`, percentile(acks, 99));
    c.collectGarbage();
    await sleep(500);
    record(kind.name, `resident memory, ${CLIENTS} clients connected (MiB)`, c.rssMib());
    await Promise.all(connections.map((s) => s.close()));
  } finally {
    await c.stop();
  }
}

try {
  const loadBefore = os.loadavg()[0];
  const kinds = [...VARIANTS.map(companionVariant), reference(testPeers, 'qwen'), reference(testPeers, 'gemini')];
  for (let r = 0; r < rounds; r++) {
    for (const [k, kind] of kinds.entries()) await measure(kind, path.join(scratch, `${k}-${r}`));
    process.stderr.write(`round ${r + 1}/${rounds} done\n`);
  }
  const names = kinds.map((k) => k.name);
  console.log(`| measure (median of ${rounds} starts) | ${names.join(' | ')} |`);
  console.log(`|---|${names.map(() => '---|').join('')}`);
  for (const [measure, byKind] of samples) {
    const fmt = (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(2));
    console.log(`| ${measure} | ${names.map((n) => fmt(percentile(byKind.get(n), 50))).join(' | ')} |`);
  }
  console.log();
  console.log(
    `${rounds} rounds; ${os.cpus().length} CPUs, load average ${loadBefore.toFixed(2)} before and ${os.loadavg()[0].toFixed(2)} after; ` +
      `Node ${process.version}; the JDK in ${path.dirname(jdk)}.`,
  );
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
