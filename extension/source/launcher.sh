#!/bin/sh
# Runs the companion4j command bundled with this extension (lib/companion4j.jar), with the Java
# that `companion4j extension install` chose and the class caches it trained for quick hooks.
# Plain sh and no subshells on the hook's path: the CLIs pay for this script on every tool call.
set -eu
self=$0
if [ -L "$self" ]; then self=$(readlink -f "$self"); fi
ext=${self%/bin/*}
lib=$ext/lib
# The shell policy guards: whatever keeps it from answering refuses the command (exit 2, the form
# both CLIs block on), never lets it through as their exit 1 or a timeout would.
guard=
if [ "${1:-}" = hook ] && [ "${3:-}" = shell-policy ]; then guard=1; fi
refuse() {
  echo "The Companion4J shell policy refused this command: it could not check it ($1)." >&2
  exit 2
}
if [ ! -f "$lib/companion4j.jar" ]; then
  if [ -n "$guard" ]; then refuse "the extension has no lib/companion4j.jar"; fi
  echo "companion4j: this extension has no lib/companion4j.jar; install it with: companion4j extension install" >&2
  exit 1
fi
# The hook runner finds the extension's agents and rules, and starts companions, through these.
COMPANION4J_EXTENSION=$ext
COMPANION4J_LAUNCHER=$ext/bin/companion4j
export COMPANION4J_EXTENSION COMPANION4J_LAUNCHER
java=java
# Whether the JDK 17 class-data archives in lib were dumped for this jar: a static archive serves
# only the class path it was dumped with (a CLI that copies the extension moves it), and one that
# does not match would turn class sharing off altogether.
dumped_here() {
  [ -f "$lib/hook.classpath" ] || return 1
  trained=
  read -r trained < "$lib/hook.classpath" || true
  [ "$trained" = "$lib/companion4j.jar" ]
}
# The file may lack a final newline, on which read fails though it read the line.
if [ -f "$lib/java" ]; then read -r java < "$lib/java" || true; fi
if [ "${1:-}" = hook ]; then
  shift
  # A cache loads all it holds: the shell policy, run on every shell call, has one of its own.
  cache=$lib/hook-${2:-}
  if [ ! -f "$cache.aot" ] && [ ! -f "$cache.jsa" ]; then cache=$lib/hook; fi
  set -- -cp "$lib/companion4j.jar" dev.companion4j.extension.hook.HookMain "$@"
  if [ -f "$cache.aot" ]; then
    # JDK 25: the serial collector starts quickest and still maps the cache's objects.
    set -- -XX:AOTCache="$cache.aot" -Xlog:aot=off -XX:+UseSerialGC "$@"
  elif [ -f "$cache.jsa" ] && dumped_here; then
    # JDK 17: it maps an archive's objects only with the default collector, G1.
    set -- -XX:SharedArchiveFile="$cache.jsa" "$@"
  fi
  # No logging in a hook (it has nothing to log at its level, and its stderr is for the CLI): SLF4J
  # is told its provider, so it does not open the jar to look for one.
  set -- -Dslf4j.provider=org.slf4j.helpers.NOP_FallbackServiceProvider -Dslf4j.internal.verbosity=WARN "$@"
  # Start small: a hook's work is a few milliseconds, too little to pay for compiling it.
  set -- -XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=20 -XX:-UsePerfData -Xlog:cds=off -Xlog:cds+dynamic=off "$@"
  if [ -z "$guard" ]; then exec "$java" "$@"; fi
  # No exec for the guard: a Java that is missing, cannot start or dies still ends in a refusal,
  # and one that has not answered after 8 s (the CLIs wait 10) is stopped and refused.
  limit=
  if command -v timeout >/dev/null 2>&1; then limit="timeout 8"; fi
  rc=0
  $limit "$java" "$@" || rc=$?
  if [ "$rc" -eq 124 ]; then refuse "no answer within 8 s"; fi
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then refuse "Java exited with $rc"; fi
  exit "$rc"
fi
# The same small JVM for every other command, above all the companion the session-start hook
# starts: C1 with the lower compile thresholds of cli/jvm.options for its first requests, and the
# serial collector; without them it would get tiered compilation and the default collector, tens
# of MiB more. Its cache was trained on a CLI session's work (`selftest`).
set -- -jar "$lib/companion4j.jar" "$@"
if [ -f "$lib/companion.aot" ]; then
  set -- -XX:AOTCache="$lib/companion.aot" -Xlog:aot=off -Xlog:cds=off -Xlog:cds+dynamic=off "$@"
elif [ -f "$lib/companion.jsa" ] && dumped_here; then
  set -- -XX:SharedArchiveFile="$lib/companion.jsa" -Xlog:cds=off -Xlog:cds+dynamic=off "$@"
fi
exec "$java" -XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.2 -XX:+UseSerialGC -XX:-UsePerfData "$@"
