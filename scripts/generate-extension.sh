#!/usr/bin/env bash
# Regenerates the committed extension directories (extension/qwen, extension/gemini) from the
# canonical source in extension/source. GeneratedFilesTest fails until they agree.
set -euo pipefail
cd "$(dirname "$0")/.."
# The reactor's own classes, not an installed copy: nothing is written to the local repository.
classpath="$(mktemp)"
trap 'rm -f "$classpath"' EXIT
mvn -B -q -ntp -pl extension -am compile dependency:build-classpath -Dmdep.outputFile="$classpath"
java -cp "extension/target/classes:$(cat "$classpath")" \
  dev.companion4j.extension.generate.ExtensionGenerator extension/source extension
echo "regenerated: $(ls -d extension/*/ | grep -v -e source -e src -e target | tr '\n' ' ')"
