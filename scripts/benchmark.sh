#!/usr/bin/env bash
# Produces the figures in docs/performance.md. Needs the npm test peers (./test.sh installs them)
# and an otherwise idle machine.
#   scripts/benchmark.sh            all benchmarks
#   scripts/benchmark.sh companion  the engine and the companion4j command
#   scripts/benchmark.sh frozen     context delivery to 20 CLIs, one of them frozen and none
#   scripts/benchmark.sh daemon     the daemon client against the official TypeScript client
#   scripts/benchmark.sh hooks      the extension's hook round trip against the same hooks in Node
#   scripts/benchmark.sh peers      naming a connected CLI by its process (/proc)
#   scripts/benchmark.sh chat-render the review page's chat: one streamed chunk at 10 to 5,000
#                                   entries, before (commit fba9d9a) and after incremental rendering
#   scripts/benchmark.sh side-by-side [rounds]
#                                   Companion4J against a companion on the official stack, with the
#                                   CLIs' own MCP client library
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:-all}"
(cd test-peers && [[ -d node_modules ]] || npm install --no-audit --no-fund --loglevel=error)
if [[ "$which" == chat-render ]]; then
  # The page's own sources in Chromium: no Java build needed.
  (cd cli/src/main/frontend && [[ -d node_modules ]] || npm ci --no-audit --no-fund --loglevel=error)
  # Beside the page's modules, which the earlier chat.js imports as well.
  git show fba9d9a:cli/src/main/frontend/src/chat.js > cli/src/main/frontend/src/.chat-before.js
  trap 'rm -f cli/src/main/frontend/src/.chat-before.js' EXIT
  (cd cli/src/main/frontend && node bench/chat-render.mjs src/.chat-before.js && node bench/chat-render.mjs src/chat.js)
  exit 0
elif [[ "$which" == side-by-side ]]; then
  # It runs the shaded jar through the launcher: packaging is enough.
  mvn -B -q -ntp -DskipTests package -pl cli -am
else
  mvn -B -q -ntp -DskipTests install -pl cli -am
fi
peers=(-Dcompanion4j.testPeers="$PWD/test-peers" -Dcompanion4j.repoRoot="$PWD")
if [[ "$which" == all || "$which" == companion ]]; then
  mvn -B -q -ntp -pl cli exec:java -Dexec.classpathScope=test \
    -Dexec.mainClass=dev.companion4j.cli.bench.CompanionBenchmark "${peers[@]}"
fi
if [[ "$which" == all || "$which" == frozen ]]; then
  mvn -B -q -ntp -pl cli exec:java -Dexec.classpathScope=test \
    -Dexec.mainClass=dev.companion4j.cli.bench.FrozenClientBenchmark
fi
if [[ "$which" == all || "$which" == daemon ]]; then
  mvn -B -q -ntp -pl daemon exec:java -Dexec.classpathScope=test \
    -Dexec.mainClass=dev.companion4j.daemon.bench.DaemonBenchmark "${peers[@]}"
fi
if [[ "$which" == all || "$which" == hooks ]]; then
  mvn -B -q -ntp -pl cli exec:java -Dexec.classpathScope=test \
    -Dexec.mainClass=dev.companion4j.cli.bench.HookBenchmark "${peers[@]}"
fi
if [[ "$which" == all || "$which" == peers ]]; then
  mvn -B -q -ntp -pl engine exec:java -Dexec.classpathScope=test \
    -Dexec.mainClass=dev.companion4j.engine.internal.session.PeerProcessesBenchmark
fi
if [[ "$which" == all || "$which" == side-by-side ]]; then
  for dir in test-peers/reference-companion test-peers/side-by-side; do
    (cd "$dir" && [[ -d node_modules ]] || npm ci --no-audit --no-fund --loglevel=error)
  done
  node test-peers/side-by-side/bench.mjs ${2:+"$2"}
fi
