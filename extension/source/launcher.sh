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
# The shell policy's resident answerer (PolicyServer, `hook policy-server`): a Java started for a
# call costs more than Node's whole check, so session start, and a call that no answerer took,
# start one, and calls ask it through named pipes in the extension's own run/, which must be this
# user's: whoever could write there could replace the jar. What it does not answer within 2 s goes
# to a Java of this call's own, which decides alone. It needs `timeout` to wait boundedly, and
# COMPANION4J_POLICY_SERVER=off keeps every call on its own Java. serve: start one after the hook.
# The guard's Java has not answered after 7 s (the CLIs wait 10, the answerer took up to 2): it is
# stopped and refused.
limit=
if command -v timeout >/dev/null 2>&1; then limit="timeout 7"; fi
run=$ext/run
serve=
live=
if [ "${1:-}" = hook ] && { [ -n "$guard" ] || [ "${3:-}" = session-start ]; } \
  && [ "${COMPANION4J_POLICY_SERVER:-}" != off ] && [ -n "$limit" ]; then
  if [ -e "$run" ]; then
    if [ -O "$run" ]; then serve=1; fi
  elif [ -w "$ext" ]; then
    serve=1
  fi
  # Its pid tells a live one from a FIFO that a killed one, or a reboot, left.
  if [ -n "$serve" ] && [ -p "$run/policy" ] && [ -f "$run/pid" ] \
    && { read -r answerer < "$run/pid"; } 2>/dev/null && kill -0 "$answerer" 2>/dev/null; then
    live=1
    serve=
  fi
  if [ -n "$guard" ] && [ -n "$live" ]; then
    # Started again if it does not answer.
    serve=1
    ask=$run/$$
    if ! timeout 2 cat > "$ask.in"; then
      rm -f "$ask.in"
      refuse "its input did not arrive whole within 2 s"
    fi
    # The input stays open here for that Java: the answerer removes the file once it read it.
    exec 3< "$ask.in"
    if { [ ! -e "$ask.out" ] || rm -f "$ask.out"; } && mkfifo -m 600 "$ask.out" \
      && printf '%s %s\n' "$$" "${2:-}" 1<> "$run/policy"; then
      nl='
'
      reply=$(timeout 2 cat "$ask.out" 2>/dev/null) || reply=
      case $reply in
        0) exit 0 ;;
        "0$nl"*) printf '%s\n' "${reply#"0$nl"}"; exit 0 ;;
        "2$nl"*) printf '%s\n' "${reply#"2$nl"}" >&2; exit 2 ;;
      esac
    fi
    rm -f "$ask.in" "$ask.out"
    exec 0<&3 3<&-
  fi
fi
if [ "${1:-}" = hook ]; then
  shift
  # A cache loads all it holds: the shell policy, run on every shell call, has one of its own.
  use_cache() {
    cache=$lib/hook-$1
    if [ ! -f "$cache.aot" ] && [ ! -f "$cache.jsa" ]; then cache=$lib/hook; fi
  }
  use_cache "${2:-}"
  # The hook runner's JVM, run as $1 says (exec, run, guard: bounded, detach: in the background)
  # with the runner's arguments. A hook's work is a few milliseconds, too little to pay for
  # compiling it: it compiles late. The answerer, which stays, compiles as usual, in a small heap
  # (it answers inputs up to 256 KiB).
  hook_jvm() {
    how=$1
    shift
    scale=20
    set -- -cp "$lib/companion4j.jar" dev.companion4j.extension.hook.HookMain "$@"
    if [ "$how" = detach ]; then
      scale=1
      set -- -Xms4m -Xmx32m "$@"
    fi
    if [ -f "$cache.aot" ]; then
      # JDK 25: the serial collector starts quickest and still maps the cache's objects.
      set -- -XX:AOTCache="$cache.aot" -Xlog:aot=off -XX:+UseSerialGC "$@"
    elif [ -f "$cache.jsa" ] && dumped_here; then
      # JDK 17: it maps an archive's objects only with the default collector, G1.
      set -- -XX:SharedArchiveFile="$cache.jsa" "$@"
    fi
    # No logging in a hook (it has nothing to log at its level, and its stderr is for the CLI):
    # SLF4J is told its provider, so it does not open the jar to look for one.
    set -- -Dslf4j.provider=org.slf4j.helpers.NOP_FallbackServiceProvider -Dslf4j.internal.verbosity=WARN "$@"
    set -- -XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=$scale -XX:-UsePerfData -Xlog:cds=off -Xlog:cds+dynamic=off "$@"
    case $how in
      exec) exec "$java" "$@" ;;
      run) "$java" "$@" ;;
      guard) $limit "$java" "$@" ;;
      detach)
        # With nothing of the CLI's, in a session of its own: the CLI neither waits for it nor
        # signals it. A second one finds the first's lock and ends.
        if [ -x /usr/bin/setsid ]; then set -- /usr/bin/setsid "$java" "$@"; else set -- "$java" "$@"; fi
        "$@" < /dev/null > /dev/null 2>&1 &
        ;;
    esac
  }
  if [ -z "$guard" ] && [ -z "$serve" ]; then hook_jvm exec "$@"; fi
  if [ -z "$guard" ]; then
    # Session start answers first, then starts the answerer, which is up before the session's
    # first shell call.
    rc=0
    hook_jvm run "$@" || rc=$?
    use_cache shell-policy
    hook_jvm detach policy-server
    exit "$rc"
  fi
  # No exec for the guard: a Java that is missing, cannot start, dies or hangs ($limit) still ends
  # in a refusal.
  rc=0
  hook_jvm guard "$@" || rc=$?
  if [ -n "$serve" ]; then hook_jvm detach policy-server; fi
  if [ "$rc" -eq 124 ]; then refuse "no answer within 7 s"; fi
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
