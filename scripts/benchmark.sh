#!/usr/bin/env bash
# Produces the figures in docs/performance.md. Needs the npm test peers (./test.sh installs them)
# and an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
(cd test-peers && [[ -d node_modules ]] || npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
mvn -B -q -ntp -DskipTests install -pl cli -am
mvn -B -q -ntp -pl cli exec:java -Dexec.classpathScope=test \
  -Dexec.mainClass=dev.companion4j.cli.bench.CompanionBenchmark \
  -Dcompanion4j.testPeers="$PWD/test-peers" -Dcompanion4j.repoRoot="$PWD"
