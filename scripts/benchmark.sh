#!/usr/bin/env bash
# Produces the figures in docs/performance.md. Needs the npm test peers (./test.sh installs them)
# and an otherwise idle machine.
#   scripts/benchmark.sh            all benchmarks
#   scripts/benchmark.sh companion  the engine and the companion4j command
#   scripts/benchmark.sh frozen     context delivery to 20 CLIs, one of them frozen and none
#   scripts/benchmark.sh daemon     the daemon client against the official TypeScript client
#   scripts/benchmark.sh hooks      the extension's hook round trip on JDK 25 and JDK 17 against the
#                                   same hooks in Node, alternating
#   scripts/benchmark.sh hooks JAR  the same, with an earlier build's companion4j.jar beside it (A/B)
#   scripts/benchmark.sh peers      naming a connected CLI by its process (/proc)
#   scripts/benchmark.sh chat-render [runs]
#                                   one streamed chunk at 10 to 5,000 entries in the review page's
#                                   chat (before: commit fba9d9a) and NetBeans' chat window (before:
#                                   the parent of c41829c), before and after incremental rendering,
#                                   alternating, [runs] times (default 1); NetBeans' needs a display
#                                   (xvfb-run)
#   scripts/benchmark.sh first-token [starts]
#                                   the chat's time to the first streamed token and the agent's start:
#                                   qwen --acp, gemini --acp and qwen serve against the fake model,
#                                   alternating, [starts] starts of each (default 5)
#   scripts/benchmark.sh code-tools [runs]
#                                   each /ide/code/ route answered by NetBeans' Java support on a
#                                   generated project of about 10,000 lines in the booted platform,
#                                   [runs] times after 3 warm-ups (default 30); needs a display
#                                   (xvfb-run)
#   scripts/benchmark.sh startup [starts]
#                                   companion4j serve's cold start step by step (its start-up marks),
#                                   beside the reference companion's, [starts] of each (default 20)
#   scripts/benchmark.sh first-minute [rounds]
#                                   the first minute after a start under the JVM's start-up choices
#                                   (C1 only or tiered, AOT cache or none, compile thresholds) beside
#                                   the reference companion on both official stacks
#   scripts/benchmark.sh pixels [runs] [clis]
#                                   proposal to pixels and accept to CLI: the real CLIs' IdeClient
#                                   against the review page (headless Chromium) and Neovim (a TUI in
#                                   tmux), a 20- and a 5,000-line file, [runs] proposals each after 3
#                                   warm-ups (default 30), [clis] qwen,gemini (default both)
#   scripts/benchmark.sh pixels-netbeans [runs]
#                                   proposal to pixels and Accept to CLI in the booted platform: the
#                                   real IdeClients of qwen and gemini propose edits to a 20-line and
#                                   a 5,000-line file, [runs] each after 3 warm-ups (default 30);
#                                   needs a display (xvfb-run)
#   scripts/benchmark.sh side-by-side [rounds] [--regime cold|steady|both]
#                                   Companion4J against a companion on the official stack, with the
#                                   CLIs' own MCP client library: the first minute after a start and
#                                   steady state (both by default)
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:-all}"
(cd test-peers && [[ -d node_modules ]] || npm install --no-audit --no-fund --loglevel=error)
# NetBeans' platform boots only under the test runner: a benchmark of it runs as the one test of
# the application module, under Xvfb, and its table is printed from the file it writes.
#   platform_benchmark <test class> <table file in netbeans/app/target> <runs>
platform_benchmark() {
  local log
  log=$(mktemp)
  trap "rm -f '$log'" EXIT
  xvfb-run -a -s "-screen 0 1600x1000x24" mvn -B -q -ntp -pl netbeans/app -am verify \
    -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false \
    -Dit.test="$1" -Dcompanion4j.benchRuns="$3" >"$log" 2>&1 \
    || { tail -n 60 "$log"; exit 1; }
  cat "netbeans/app/target/$2"
}
if [[ "$which" == chat-render ]]; then
  # The page's own sources in Chromium; the NetBeans module's classes and its test classpath, the
  # sibling modules from their build folders.
  (cd cli/src/main/frontend && [[ -d node_modules ]] || npm ci --no-audit --no-fund --loglevel=error)
  mvn -B -q -ntp -DskipTests -pl netbeans/module -am test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test
  before=$(mktemp -d)
  # The page's earlier chat.js beside the page's modules, which it imports as well.
  git show fba9d9a:cli/src/main/frontend/src/chat.js > cli/src/main/frontend/src/.chat-before.js
  trap 'rm -rf cli/src/main/frontend/src/.chat-before.js "$before"' EXIT
  # The NetBeans module as it was before incremental rendering, compiled against today's siblings
  # and put first on the class path, so that its window is the one measured.
  git archive c41829c^ netbeans/module/src/main/java | tar -x -C "$before"
  mkdir "$before/classes"
  nb_cp="netbeans/module/target/test-classes:netbeans/module/target/classes:$(cat netbeans/module/target/bench.classpath)"
  javac -proc:none -nowarn -d "$before/classes" -cp "$nb_cp" $(find "$before/netbeans" -name '*.java')
  netbeans() {
    xvfb-run -a -s "-screen 0 1600x1000x24" java -cp "$1" dev.companion4j.netbeans.ChatRenderBenchmark
  }
  for ((run = 1; run <= ${2:-1}; run++)); do
    echo "run $run, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    (cd cli/src/main/frontend && node bench/chat-render.mjs src/.chat-before.js && node bench/chat-render.mjs src/chat.js)
    netbeans "$before/classes:$nb_cp"
    netbeans "$nb_cp"
  done
  exit 0
elif [[ "$which" == first-token ]]; then
  # Built in the reactor, the sibling modules from their build folders.
  mvn -B -q -ntp -DskipTests -pl acp -am test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test
  java -Dcompanion4j.testPeers="$PWD/test-peers" -Dcompanion4j.repoRoot="$PWD" \
    -cp "acp/target/test-classes:acp/target/classes:$(cat acp/target/bench.classpath)" \
    dev.companion4j.acp.bench.FirstTokenBenchmark ${2:+"$2"}
  exit 0
elif [[ "$which" == code-tools ]]; then
  platform_benchmark NetBeansCodeToolsBenchmark code-tools-benchmark.txt "${2:-30}"
  exit 0
elif [[ "$which" == pixels-netbeans ]]; then
  platform_benchmark NetBeansPixelsBenchmark pixels-benchmark.txt "${2:-30}"
  exit 0
elif [[ "$which" == startup ]]; then
  # Through the launcher, as users start it: packaging is enough.
  mvn -B -q -ntp -DskipTests package -pl cli -am
  for dir in test-peers/reference-companion test-peers/side-by-side; do
    (cd "$dir" && [[ -d node_modules ]] || npm ci --no-audit --no-fund --loglevel=error)
  done
  node scripts/startup-steps.mjs ${2:+"$2"}
  exit 0
elif [[ "$which" == pixels ]]; then
  # The companion and Neovim's attach run through the launcher, which runs the packaged jar.
  mvn -B -q -ntp -DskipTests package -pl cli -am
  node cli/src/main/frontend/bench/proposal-to-pixels.mjs "${2:-30}" "${3:-qwen,gemini}"
  exit 0
elif [[ "$which" == hooks ]]; then
  # Built in the reactor, the sibling modules from their build folders; run on the default Java
  # (JDK 17), which the benchmark stages the extension with beside the newest JDK.
  mvn -B -q -ntp -DskipTests -pl cli -am package dependency:build-classpath \
    -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test
  # An earlier build's jar as a second argument is measured beside it (A/B).
  java -Dcompanion4j.testPeers="$PWD/test-peers" -Dcompanion4j.repoRoot="$PWD" \
    ${2:+-Dcompanion4j.bench.baseline="$2"} \
    -cp "cli/target/test-classes:cli/target/classes:$(cat cli/target/bench.classpath)" \
    dev.companion4j.cli.bench.HookBenchmark
  exit 0
elif [[ "$which" == first-minute ]]; then
  mvn -B -q -ntp -DskipTests package -pl cli -am
  for dir in test-peers/reference-companion test-peers/side-by-side; do
    (cd "$dir" && [[ -d node_modules ]] || npm ci --no-audit --no-fund --loglevel=error)
  done
  node test-peers/side-by-side/first-minute.mjs ${2:+"$2"}
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
  node test-peers/side-by-side/bench.mjs "${@:2}"
fi
