// The SessionStart hook written in Node, for comparison with the Java hook runner: finds the
// newest companion serving the working directory through Gemini CLI's discovery files, has it
// prove it holds the file's token (GET /ide/proof, as every Companion4J client does before sending
// the token), asks it for its status and answers with the same context.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';

const input = JSON.parse(readFileSync(0, 'utf8'));
const cwd = realpathSync(input.cwd || process.cwd());
const dir = join(tmpdir(), 'gemini', 'ide');
const serving = [];
for (const name of readdirSync(dir)) {
  const m = /^gemini-ide-server-(\d+)-\d+\.json$/.exec(name);
  if (!m) continue;
  try { process.kill(Number(m[1]), 0); } catch { continue; }
  const path = join(dir, name);
  const file = JSON.parse(readFileSync(path, 'utf8'));
  const roots = String(file.workspacePath).split(':').filter(Boolean).map((r) => realpathSync(r));
  if (roots.some((r) => cwd === r || cwd.startsWith(r + sep))) serving.push({ file, mtime: statSync(path).mtimeMs });
}
serving.sort((a, b) => b.mtime - a.mtime);
async function proves({ port, authToken }) {
  const nonce = randomBytes(32).toString('hex');
  const res = await fetch(`http://127.0.0.1:${port}/ide/proof?nonce=${nonce}`, { redirect: 'manual' });
  if (res.status !== 200) return false;
  const { proof } = await res.json();
  return proof === createHash('sha256').update(`companion4j-proof:${nonce}:${authToken}`).digest('hex');
}
let found;
for (const { file } of serving) {
  if (await proves(file)) { found = file; break; }
}
let context = 'IDE status (Companion4J): no IDE companion serves ' + cwd;
if (found) {
  const res = await fetch(`http://127.0.0.1:${found.port}/ide/status`, { headers: { Authorization: `Bearer ${found.authToken}` } });
  const s = await res.json();
  context = 'IDE status (Companion4J):\nEditor: ' + s.ide.displayName + ' (Companion4J companion on port ' + s.port + ')\n'
    + 'Workspace roots: ' + s.workspaceRoots.join(', ') + '\nActive file: ' + (s.activeFile ? s.activeFile.path : 'none');
}
process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: context } }) + '\n');
