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
// Older releases ship the IdeClient differently, and are found in this order after the search:
// - Gemini CLI up to 0.3x is not bundled: the IdeClient is its core package's
//   dist/src/ide/ide-client.js, the store dist/src/ide/ideContext.js.
// - Qwen Code up to 0.15 is one bundle that exports nothing and starts the CLI when imported:
//   bundle-hooks.mjs imports it without starting it and exports its IdeClient.
//
// Override: IDE_CLIENT_DRIVER_MODULE=/abs/path/to/chunk.js skips the search.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { register } from 'node:module';
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
 * Returns { file, version, entries }: file is the chunk that exports IdeClient
 * and ideContextStore, reachable from the package's entry points, if any.
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
  return { file: undefined, version, entries };
}

const CORE_PACKAGES = { '@google/gemini-cli': '@google/gemini-cli-core' };

/** Gemini CLI before bundling: the IdeClient and the store are modules of its core package. */
async function importFromCorePackage(pkg, pkgDir) {
  const core = CORE_PACKAGES[pkg];
  if (!core) return undefined;
  let coreDir;
  try {
    coreDir = findPackageDir(core, pkgDir);
  } catch {
    return undefined;
  }
  const ide = path.join(coreDir, 'dist', 'src', 'ide');
  if (!fs.existsSync(path.join(ide, 'ide-client.js'))) return undefined;
  const { IdeClient } = await import(pathToFileURL(path.join(ide, 'ide-client.js')).href);
  const { ideContextStore } = await import(pathToFileURL(path.join(ide, 'ideContext.js')).href);
  return { IdeClient, ideContextStore, file: path.join(ide, 'ide-client.js') };
}

/** A one-file bundle that defines the IdeClient among everything else and starts the CLI. */
async function importFromBundle(entries) {
  const bundle = entries.find(
    (f) => fs.existsSync(f) && fs.readFileSync(f, 'utf8').includes('\n    IdeClient = class'),
  );
  if (!bundle) return undefined;
  const bundleUrl = pathToFileURL(bundle).href;
  register('./bundle-hooks.mjs', import.meta.url, { data: { bundleUrl } });
  const mod = await import(bundleUrl);
  return { ...mod.companion4jIdeClient(), file: bundle };
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
  let entries;
  if (process.env['IDE_CLIENT_DRIVER_MODULE']) {
    file = path.resolve(process.env['IDE_CLIENT_DRIVER_MODULE']);
    version = entryPoints(pkgDir).version;
  } else {
    ({ file, version, entries } = locateIdeClientModule(pkgDir));
  }
  const found = file
    ? { ...(await import(pathToFileURL(file).href)), file }
    : (await importFromCorePackage(pkg, pkgDir)) ?? (await importFromBundle(entries));
  if (!found) {
    throw new Error(`${pkg}@${version} has no IdeClient (searched from ${entries.join(', ')})`);
  }
  ({ file } = found);
  const { IdeClient, ideContextStore } = found;
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
