#!/usr/bin/env bash
# The full CLI version matrix: installs every release in test-peers/versions/ from its pinned
# lockfile, runs CliVersionMatrixIT against all of them, and writes the resulting table into
# docs/compatibility.md (between the cli-matrix markers). ./test.sh runs the oldest supported
# and the newest release of each CLI; this runs them all (about 3 GB of packages).
#
#   scripts/cli-matrix.sh            every release
#   scripts/cli-matrix.sh qwen-0.5.2 gemini-0.40.1
#                                    only these (the table then lists only them: not written)
set -euo pipefail
cd "$(dirname "$0")/.."

if (($#)); then
  releases=("$@")
else
  releases=()
  for dir in test-peers/versions/*/; do releases+=("$(basename "$dir")"); done
fi
(cd test-peers && npm install --no-audit --no-fund --loglevel=error)
for release in "${releases[@]}"; do
  echo "cli-matrix: installing $release" >&2
  # Only the IdeClient is driven: no install scripts (native modules for the terminal UI).
  (cd "test-peers/versions/$release" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error)
done

selection=$(IFS=,; echo "${releases[*]}")
(($#)) || selection=all
mvn -B -ntp -pl cli -am verify -Dit.test=CliVersionMatrixIT -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dfailsafe.failIfNoSpecifiedTests=false -Dcompanion4j.cliVersions="$selection"

if ((!$#)); then
  table=cli/target/cli-matrix.md
  doc=docs/compatibility.md
  awk -v table="$table" '
    /<!-- cli-matrix:begin/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
    /<!-- cli-matrix:end/ { skip = 0 }
    !skip { print }
  ' "$doc" > "$doc.new"
  mv "$doc.new" "$doc"
  echo "cli-matrix: wrote the table in $doc" >&2
fi
