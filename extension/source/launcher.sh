#!/bin/sh
# Runs the companion4j command bundled with this extension (lib/companion4j.jar), with the Java
# that `companion4j extension install` chose and the class caches it trained for quick hooks.
# Plain sh and no subshells on the hook's path: the CLIs pay for this script on every tool call.
set -eu
self=$0
if [ -L "$self" ]; then self=$(readlink -f "$self"); fi
ext=${self%/bin/*}
lib=$ext/lib
if [ ! -f "$lib/companion4j.jar" ]; then
  echo "companion4j: this extension has no lib/companion4j.jar; install it with: companion4j extension install" >&2
  exit 1
fi
# The hook runner finds the extension's agents and rules, and starts companions, through these.
COMPANION4J_EXTENSION=$ext
COMPANION4J_LAUNCHER=$ext/bin/companion4j
export COMPANION4J_EXTENSION COMPANION4J_LAUNCHER
java=java
# The file may lack a final newline, on which read fails though it read the line.
if [ -f "$lib/java" ]; then read -r java < "$lib/java" || true; fi
if [ "${1:-}" = hook ]; then
  shift
  # A cache loads all it holds: the shell policy, run on every shell call, has one of its own.
  cache=$lib/hook-${2:-}
  if [ ! -f "$cache.aot" ] && [ ! -f "$cache.jsa" ]; then cache=$lib/hook; fi
  set -- -cp "$lib/companion4j.jar" dev.companion4j.extension.hook.HookMain "$@"
  if [ -f "$cache.aot" ]; then
    set -- -XX:AOTCache="$cache.aot" -Xlog:aot=off "$@"
  elif [ -f "$cache.jsa" ]; then
    set -- -XX:SharedArchiveFile="$cache.jsa" "$@"
  fi
  # Start small: a hook's work is a few milliseconds.
  exec "$java" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData -Xlog:cds=off -Xlog:cds+dynamic=off "$@"
fi
exec "$java" -jar "$lib/companion4j.jar" "$@"
