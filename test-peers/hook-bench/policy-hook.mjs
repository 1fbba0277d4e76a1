// The PreToolUse shell-policy hook written in Node, for comparison with the Java hook runner:
// reads the hook's JSON on stdin, checks the command against the same rule file, answers the same.
// Usage: node policy-hook.mjs <shell-policy.json>
import { readFileSync } from 'node:fs';

const policy = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const input = JSON.parse(readFileSync(0, 'utf8'));
const command = input.tool_input?.command ?? '';
let ask;
for (const rule of policy.rules) {
  if (new RegExp(rule.pattern).test(command)) {
    if (rule.decision === 'deny') {
      process.stdout.write(JSON.stringify({ decision: 'deny', reason: rule.message }) + '\n');
      process.exit(0);
    }
    ask ??= rule;
  }
}
if (ask) {
  process.stdout.write(JSON.stringify({ decision: 'ask', reason: ask.message }) + '\n');
}
