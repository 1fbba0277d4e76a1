#!/usr/bin/env node
// `companion4j serve`'s cold start step by step, beside the reference companion's (both official
// stacks), started alternately as their users start them (test-peers/side-by-side/companions.mjs).
// Run by `scripts/benchmark.sh startup [starts]`, which packages the jar first.
//
//   node scripts/startup-steps.mjs [starts]      (default 20 of each)
//
// Companion4J prints its start-up marks (-Dcompanion4j.startup.marks=true, through
// JDK_JAVA_OPTIONS, which the JVM reads beside the launcher's own flags): wall-clock microseconds
// at each step. Each is placed on the benchmark's clock by the ready mark, taken just before the
// ready line whose arrival the benchmark times. Prints one Markdown table of medians, in ms from
// spawning the process.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { companion4j, reference, start } from '../test-peers/side-by-side/companions.mjs';

const starts = Number(process.argv[2] ?? 20);
const repoRoot = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const testPeers = path.join(repoRoot, 'test-peers');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'startup-steps-'));
process.on('exit', () => fs.rmSync(scratch, { recursive: true, force: true }));

const launcher = companion4j(repoRoot, scratch);
const marked = {
  ...launcher,
  command: () => ['env', ['JDK_JAVA_OPTIONS=-Dcompanion4j.startup.marks=true', ...launcher.command(false).flat()]],
};
const kinds = [marked, reference(testPeers, 'qwen'), reference(testPeers, 'gemini')];
const STEPS = [
  ['main', 'JVM up, main() entered'],
  ['parsed', 'command line read (picocli), serve called'],
  ['built', 'companion built (Jetty, routes)'],
  ['file', 'port bound, Qwen discovery file written'],
  ['ready', 'serving (MCP, Jetty started): ready line'],
  ['initialize', 'first MCP initialize answered'],
];

const loadBefore = os.loadavg()[0];
launcher.prepare();
const samples = new Map(kinds.map((k) => [k.name, new Map()]));
for (let i = 0; i < starts; i++) {
  for (const kind of i % 2 ? [...kinds].reverse() : kinds) {
    const c = await start(kind, path.join(scratch, `${i}-${kinds.indexOf(kind)}`));
    const at = { file: c.coldStart.toFile, ready: c.coldStart.toReady, initialize: c.coldStart.toInitialize };
    const marks = new Map(
      [...c.stderr().matchAll(/^companion4j-startup (\S+) (\d+)$/gm)].map(([, step, micros]) => [step, Number(micros) / 1000]),
    );
    if (kind === marked) {
      if (!marks.has('ready')) throw new Error(`no start-up marks on stderr: ${c.stderr()}`);
      const spawn = marks.get('ready') - at.ready;
      for (const [step, ms] of marks) if (step !== 'ready') at[step] = ms - spawn;
    }
    for (const [step, ms] of Object.entries(at)) {
      const byStep = samples.get(kind.name);
      byStep.set(step, [...(byStep.get(step) ?? []), ms]);
    }
    await c.stop();
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const cell = (name, step) => {
  const xs = samples.get(name).get(step);
  return xs ? median(xs).toFixed(0) : '';
};
console.log(`| step (ms from spawn, median) | ${kinds.map((k) => k.name).join(' | ')} |`);
console.log(`|---|${kinds.map(() => '---').join('|')}|`);
for (const [step, label] of STEPS) console.log(`| ${label} | ${kinds.map((k) => cell(k.name, step)).join(' | ')} |`);
console.log(
  `\n${starts} starts of each, alternating; ${os.cpus().length} CPUs, load average ${loadBefore.toFixed(2)} before and ` +
    `${os.loadavg()[0].toFixed(2)} after; Node ${process.version}.`,
);
