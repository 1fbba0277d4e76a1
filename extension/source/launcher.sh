#!/usr/bin/env bash
# Runs the companion4j command bundled with this extension (lib/companion4j.jar), with the Java
# that `companion4j extension install` chose and the class cache it trained for quick hooks.
set -euo pipefail
lib="$(cd "$(dirname "$(readlink -f "$0")")/../lib" && pwd)"
if [[ ! -f "$lib/companion4j.jar" ]]; then
  echo "companion4j: this extension has no lib/companion4j.jar; install it with: companion4j extension install" >&2
  exit 1
fi
# The hook runner finds the extension's agents, and starts companions, through these.
export COMPANION4J_EXTENSION="$(dirname "$lib")"
export COMPANION4J_LAUNCHER="$COMPANION4J_EXTENSION/bin/companion4j"
java=java
[[ -f "$lib/java" ]] && java="$(<"$lib/java")"
if [[ "${1:-}" == hook ]]; then
  # A hook runs on every tool call: start small, from the class cache trained at install.
  opts=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData -Xlog:cds=off -Xlog:cds+dynamic=off)
  if [[ -f "$lib/hook.aot" ]]; then
    opts+=(-XX:AOTCache="$lib/hook.aot" -Xlog:aot=off)
  elif [[ -f "$lib/hook.jsa" ]]; then
    opts+=(-XX:SharedArchiveFile="$lib/hook.jsa")
  fi
  exec "$java" "${opts[@]}" -cp "$lib/companion4j.jar" dev.companion4j.extension.hook.HookMain "${@:2}"
fi
exec "$java" -jar "$lib/companion4j.jar" "$@"
