// Locates the IdeClient bundled inside an installed CLI package, without
// hard-coding the content-hashed chunk file names.
//
// Strategy: start at the package's entry points (package.json "main" and every
// "bin"), walk the relative import graph breadth-first (static `from "./x.js"`,
// side-effect `import "./x.js"` and dynamic `import("./x.js")`), and take the
// first reachable module whose `export { ... }` block names both `IdeClient`
// and `ideContextStore`. Following the graph matters: @google/gemini-cli 0.61.0
// ships three near-identical copies of its core chunk (leftovers of several
// builds) and only one of them is what `gemini` actually loads.
//
// Override: IDE_CLIENT_DRIVER_MODULE=/abs/path/to/chunk.js skips the search.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

export const PACKAGES = {
  qwen: '@qwen-code/qwen-code',
  gemini: '@google/gemini-cli',
};

const IMPORT_RE =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"'\n]+?\.m?js)\1/g;
const EXPORT_BLOCK_RE = /\bexport\s*\{([^}]*)\}/g;

/** Finds node_modules/<pkg> walking up from the driver's directory. */
export function findPackageDir(pkg, fromDir) {
  let dir = fromDir;
  for (;;) {
    const candidate = path.join(dir, 'node_modules', ...pkg.split('/'));
    if (fs.existsSync(path.join(candidate, 'package.json'))) {
      return candidate;
    }
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new Error(`package ${pkg} not found in any node_modules above ${fromDir}`);
    }
    dir = parent;
  }
}

/** Export names of a module's `export { a, b as c }` blocks. */
function exportNames(source) {
  const names = new Set();
  for (const m of source.matchAll(EXPORT_BLOCK_RE)) {
    for (const raw of m[1].split(',')) {
      const spec = raw.replace(/\/\*[\s\S]*?\*\//g, '').trim();
      if (!spec) continue;
      const parts = spec.split(/\s+as\s+/);
      names.add(parts[parts.length - 1].trim());
    }
  }
  return names;
}

function entryPoints(pkgDir) {
  const pj = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  const entries = [];
  if (typeof pj.main === 'string') entries.push(pj.main);
  if (typeof pj.bin === 'string') entries.push(pj.bin);
  else if (pj.bin && typeof pj.bin === 'object') entries.push(...Object.values(pj.bin));
  return {
    version: pj.version,
    entries: [...new Set(entries)].map((e) => path.resolve(pkgDir, e)),
  };
}

/**
 * Returns { file, version } of the chunk that exports IdeClient and
 * ideContextStore, reachable from the package's entry points.
 */
export function locateIdeClientModule(pkgDir) {
  const { version, entries } = entryPoints(pkgDir);
  const queue = entries.filter((f) => fs.existsSync(f));
  const seen = new Set(queue);
  while (queue.length > 0) {
    const file = queue.shift();
    let source;
    try {
      source = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    if (source.includes('IdeClient')) {
      const names = exportNames(source);
      if (names.has('IdeClient') && names.has('ideContextStore')) {
        return { file, version };
      }
    }
    for (const m of source.matchAll(IMPORT_RE)) {
      const target = path.resolve(path.dirname(file), m[2]);
      if (!seen.has(target) && target.startsWith(pkgDir + path.sep)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  throw new Error(
    `no module reachable from ${entries.join(', ')} exports IdeClient and ideContextStore`,
  );
}

/**
 * Imports the CLI's own IdeClient class and context store.
 * @param {'qwen'|'gemini'} cli
 * @param {string} driverDir directory to start looking for node_modules
 */
export async function loadIdeClient(cli, driverDir) {
  const pkg = PACKAGES[cli];
  if (!pkg) throw new Error(`unknown --cli ${cli} (expected qwen or gemini)`);
  const pkgDir = findPackageDir(pkg, driverDir);
  let file;
  let version;
  if (process.env['IDE_CLIENT_DRIVER_MODULE']) {
    file = path.resolve(process.env['IDE_CLIENT_DRIVER_MODULE']);
    version = entryPoints(pkgDir).version;
  } else {
    ({ file, version } = locateIdeClientModule(pkgDir));
  }
  const mod = await import(pathToFileURL(file).href);
  const { IdeClient, ideContextStore } = mod;
  if (
    typeof IdeClient?.getInstance !== 'function' ||
    typeof IdeClient.prototype?.openDiff !== 'function' ||
    typeof IdeClient.prototype?.closeDiff !== 'function' ||
    typeof ideContextStore?.get !== 'function' ||
    typeof ideContextStore?.subscribe !== 'function'
  ) {
    throw new Error(`${file} exports IdeClient/ideContextStore of an unexpected shape`);
  }
  return { IdeClient, ideContextStore, file, pkg, version };
}
