// The companions under comparison, each started as its users start it, in a home of its own
// (HOME, QWEN_HOME, TMPDIR and a workspace under a scratch folder) so that their discovery files
// meet nobody else's.

import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { initializeOnce } from './clients.mjs';

/**
 * Companion4J as `companion4j serve` runs under its launcher: the shaded jar, the flags of
 * cli/jvm.options and the class-data-sharing archive the launcher records with `selftest`.
 */
export function companion4j(repoRoot, scratch) {
  const jar = path.join(repoRoot, 'cli/target/companion4j.jar');
  const java = process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin/java') : 'java';
  const flags = fs
    .readFileSync(path.join(repoRoot, 'cli/jvm.options'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const archive = path.join(scratch, 'companion4j.jsa');
  return {
    name: 'Companion4J',
    prepare() {
      execFileSync(java, [...flags, `-XX:ArchiveClassesAtExit=${archive}`, '-Xlog:cds=off', '-Xlog:cds+dynamic=off', '-jar', jar, 'selftest'], {
        stdio: 'ignore',
        env: isolatedEnv(path.join(scratch, 'selftest')),
      });
    },
    // Uncapped: serve with room for more than its 32 CLI sessions (cli/src/test/.../UncappedServe);
    // the archive still applies, its class path being a prefix of this one.
    command: (uncapped) => [
      java,
      [
        ...flags,
        `-XX:SharedArchiveFile=${archive}`,
        '-Xlog:cds=off',
        '-Xlog:cds+dynamic=off',
        ...(uncapped
          ? ['-cp', `${jar}${path.delimiter}${path.join(repoRoot, 'cli/target/test-classes')}`, 'dev.companion4j.cli.UncappedServe']
          : ['-jar', jar, 'serve']),
      ],
    ],
    // Resident memory is read after a full collection on both sides.
    collectGarbage: (pid) => execFileSync('jcmd', [String(pid), 'GC.run'], { stdio: 'ignore' }),
  };
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
  return { HOME: home, QWEN_HOME: path.join(home, '.qwen'), TMPDIR: tmp, PATH: process.env.PATH };
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
