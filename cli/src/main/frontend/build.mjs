// Bundles the review page into a directory of static assets for the jar.
// Usage: node build.mjs [outdir]   (default: dist)
// Asset names carry a content hash, so the server may let browsers cache
// them forever; index.html (never cached) is written last with those names.
import * as esbuild from 'esbuild';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const outdir = path.resolve(process.argv[2] ?? path.join(here, 'dist'));

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });

const result = await esbuild.build({
  absWorkingDir: here,
  entryPoints: { review: 'src/main.js', style: 'src/review.css' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  target: ['chrome111', 'firefox115', 'safari16.4'],
  minify: true,
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
});

const outputs = Object.entries(result.metafile.outputs);
const entry = (name) => {
  const found = outputs.find(([, o]) => o.entryPoint === name);
  if (!found) throw new Error(`no output for ${name}`);
  return path.basename(found[0]);
};

const template = await readFile(path.join(here, 'src/index.html'), 'utf8');
const html = template
  .replace('%SCRIPT%', entry('src/main.js'))
  .replace('%STYLE%', entry('src/review.css'));
await writeFile(path.join(outdir, 'index.html'), html);

const files = outputs.map(([f]) => path.basename(f)).concat('index.html').sort();
console.log(`review page: ${files.length} files in ${outdir}`);
