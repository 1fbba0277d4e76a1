// The companions under comparison, each started as its users start it, in a home of its own
// (HOME, QWEN_HOME, TMPDIR and a workspace under a scratch folder) so that their discovery files
// meet nobody else's.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { initializeOnce } from './clients.mjs';

/**
 * Companion4J as its users start it: `companion4j serve` through the launcher, which picks the
 * newest JDK installed and the start-up cache it recorded for it.
 */
export function companion4j(repoRoot, scratch) {
  const launcher = path.join(repoRoot, 'companion4j');
  return {
    name: 'Companion4J',
    // The launcher builds and records its cache on first use; that is not a cold start.
    prepare() {
      execFileSync(launcher, ['selftest'], { stdio: 'ignore', env: isolatedEnv(path.join(scratch, 'selftest')) });
    },
    // Uncapped: room for more than serve's default of 32 CLI sessions.
    command: (uncapped) => [launcher, ['serve', ...(uncapped ? ['--max-clis', '128'] : [])]],
    // Resident memory is read after a full collection on both sides, with the JVM's own jcmd.
    collectGarbage: (pid) => execFileSync(jdkTool(pid, 'jcmd'), [String(pid), 'GC.run'], { stdio: 'ignore' }),
    // The JVM the launcher chose, as `java -version` names it.
    runtime: (pid) => spawnSync(jdkTool(pid, 'java'), ['-version'], { encoding: 'utf8' }).stderr.split('\n')[1],
  };
}

function jdkTool(pid, tool) {
  return path.join(path.dirname(fs.realpathSync(`/proc/${pid}/exe`)), tool);
}

/** The reference companion on one official companion's stack: `qwen` (SDK 1.30.0) or `gemini` (SDK 1.23.0). */
export function reference(testPeers, stack) {
  const server = path.join(testPeers, 'reference-companion/server.mjs');
  return {
    name: `reference, ${stack === 'qwen' ? 'Qwen stack (SDK 1.30.0)' : 'Gemini stack (SDK 1.23.0)'}`,
    prepare() {},
    // --expose-gc only lets the benchmark ask for the collection it asks the JVM for.
    command: () => [process.execPath, ['--expose-gc', server, '--stack', stack]],
    collectGarbage: (pid) => process.kill(pid, 'SIGUSR2'),
  };
}

// Whatever ends the benchmark, no companion it started outlives it.
const running = new Set();
process.on('exit', () => running.forEach((child) => child.kill('SIGKILL')));

function isolatedEnv(dir) {
  const home = path.join(dir, 'home');
  const tmp = path.join(dir, 'tmp');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(tmp, { recursive: true });
  // COMPANION4J_JAVA, when set, makes the launcher run that JDK rather than the newest installed.
  const java = process.env.COMPANION4J_JAVA ? { COMPANION4J_JAVA: process.env.COMPANION4J_JAVA } : {};
  return { HOME: home, QWEN_HOME: path.join(home, '.qwen'), TMPDIR: tmp, PATH: process.env.PATH, ...java };
}

/**
 * Starts `kind` in a new home under `dir` and measures its cold start: milliseconds from spawning
 * the process to its Qwen lock file existing, to its ready line on stdout, and to the answer of an
 * MCP initialize sent as soon as the lock file could be read.
 */
export async function start(kind, dir, { uncapped = false } = {}) {
  const env = isolatedEnv(dir);
  const workspace = path.join(dir, 'workspace');
  fs.mkdirSync(workspace, { recursive: true });
  const file = path.join(workspace, 'a.txt');
  fs.writeFileSync(file, 'one\ntwo\nthree\n');
  const lockDir = path.join(env.QWEN_HOME, 'ide');

  const [command, args] = kind.command(uncapped);
  const started = performance.now();
  const child = spawn(command, args, { cwd: workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  running.add(child);
  const exited = new Promise((resolve) => child.once('exit', resolve)).finally(() => running.delete(child));
  const ready = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve({ at: performance.now(), line: JSON.parse(out.slice(0, nl)) });
    });
    exited.then(() => reject(new Error(`${kind.name} exited during start: ${stderr}`)));
  });
  ready.catch(() => {});

  try {
    let lock;
    while (!(lock = readLock(lockDir))) {
      if (child.exitCode !== null) throw new Error(`${kind.name} exited during start: ${stderr}`);
      await sleep(1);
    }
    const toFile = performance.now() - started;
    await initializeOnce(lock.port, lock.authToken);
    const toInitialize = performance.now() - started;
    const { at, line } = await ready;
    if (line.event !== 'ready' || line.port !== lock.port || !line.editorApi) {
      throw new Error(`${kind.name} printed no ready line for port ${lock.port}: ${JSON.stringify(line)}`);
    }
    return {
      port: lock.port,
      token: lock.authToken,
      file,
      coldStart: { toFile, toReady: at - started, toInitialize },
      collectGarbage: () => kind.collectGarbage(child.pid),
      runtime: () => kind.runtime?.(child.pid),
      rssMib: () => rssMib(child.pid),
      stderr: () => stderr,
      async stop() {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
      },
    };
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    throw err;
  }
}

function readLock(dir) {
  try {
    const name = fs.readdirSync(dir).find((f) => f.endsWith('.lock'));
    return name && JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
  } catch {
    // Not there yet, or written but not complete: the official companions write in place.
    return undefined;
  }
}

function rssMib(pid) {
  const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(line.replace(/\D/g, '')) / 1024;
}
