// The SessionStart hook written in Node, for comparison with the Java hook runner: finds the
// companion serving the working directory through Gemini CLI's discovery files, asks it for its
// status and answers with the same context.
import { readFileSync, readdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';

const input = JSON.parse(readFileSync(0, 'utf8'));
const cwd = realpathSync(input.cwd || process.cwd());
const dir = join(tmpdir(), 'gemini', 'ide');
let found;
for (const name of readdirSync(dir)) {
  if (!/^gemini-ide-server-\d+-\d+\.json$/.test(name)) continue;
  const file = JSON.parse(readFileSync(join(dir, name), 'utf8'));
  const roots = String(file.workspacePath).split(':').filter(Boolean).map((r) => realpathSync(r));
  if (roots.some((r) => cwd === r || cwd.startsWith(r + sep))) { found = file; break; }
}
let context = 'IDE status (Companion4J): no IDE companion serves ' + cwd;
if (found) {
  const res = await fetch(`http://127.0.0.1:${found.port}/ide/status`, { headers: { Authorization: `Bearer ${found.authToken}` } });
  const s = await res.json();
  context = 'IDE status (Companion4J):\nEditor: ' + s.ide.displayName + ' (Companion4J companion on port ' + s.port + ')\n'
    + 'Workspace roots: ' + s.workspaceRoots.join(', ') + '\nActive file: ' + (s.activeFile ? s.activeFile.path : 'none');
}
process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: context } }) + '\n');
