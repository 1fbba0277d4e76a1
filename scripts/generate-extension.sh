#!/usr/bin/env bash
# Regenerates the committed extension directories (extension/qwen, extension/gemini) from the
# canonical source in extension/source. GeneratedFilesTest fails until they agree.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -ntp -pl extension -am install -DskipTests
mvn -B -q -ntp -pl extension exec:java \
  -Dexec.mainClass=dev.companion4j.extension.generate.ExtensionGenerator \
  -Dexec.args="extension/source extension"
echo "regenerated: $(ls -d extension/*/ | grep -v -e source -e src -e target | tr '\n' ' ')"
