#!/usr/bin/env bash
# Starts the Eclipse IDE with the Companion4J plugin, as the tests do, from the bundles the build
# gathered (mvn -B -q -P eclipse -pl eclipse/app -am package -DskipTests):
#   scripts/run-eclipse.sh [--data WORKSPACE_DIR] PROJECT_DIR...
# Each PROJECT_DIR is opened as a project (in place). Once the companion serves, standard output
# gets one line {"event":"ready","port":N,"pid":P}; then it runs until SIGTERM (or the window is
# closed), and exits with the companion's discovery files removed. Runs under its own Xvfb when
# there is no DISPLAY. HOME, QWEN_HOME and TMPDIR are honoured, by Eclipse too.
# --eclipse DIR starts the Eclipse installed in DIR by p2 (its own configuration and bundles)
# instead of the build's bundles: how the install test starts the Eclipse it installed into.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
plugins=$root/eclipse/app/target/eclipse/plugins
# The bundles need Java 21 or newer (docs/eclipse-internals.md).
java=${ECLIPSE_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java

usage() { echo "usage: scripts/run-eclipse.sh [--data WORKSPACE_DIR] [--eclipse DIR] PROJECT_DIR..." >&2; exit 2; }
data=
installed=
projects=()
while [ $# -gt 0 ]; do
  case $1 in
    --data) [ $# -ge 2 ] || usage; data=$2; shift 2 ;;
    --eclipse) [ $# -ge 2 ] && [ -d "$2/configuration" ] || usage; installed=$(cd "$2" && pwd); shift 2 ;;
    -h|--help) usage ;;
    -*) echo "run-eclipse.sh: unknown option $1" >&2; usage ;;
    *) [ -d "$1" ] || { echo "run-eclipse.sh: $1 is no folder" >&2; exit 2; }
       projects+=("$(cd "$1" && pwd)"); shift ;;
  esac
done
framework=$(ls "$plugins"/org.eclipse.osgi-[0-9]*.jar 2>/dev/null | head -1) || true
[ -n "$installed" ] && framework=$(ls "$installed"/plugins/org.eclipse.osgi_[0-9]*.jar 2>/dev/null | head -1)
[ -n "$framework" ] && [ -x "$java" ] || {
  echo "run-eclipse.sh: needs $java and the bundles in $plugins:" \
    "mvn -B -q -P eclipse -pl eclipse/app -am package -DskipTests" >&2
  exit 2
}

work=$(mktemp -d "${TMPDIR:-/tmp}/companion4j-eclipse.XXXXXX")
data=${data:-$work/workspace}
mkdir -p "$work/configuration" "$data"
data=$(cd "$data" && pwd)
configuration=$work/configuration
install=()
# An installed Eclipse: its bundles.info names the bundles relative to the install area.
[ -n "$installed" ] && configuration=$installed/configuration && install=(-Dosgi.install.area="file:$installed/")

# The framework's configuration: every bundle by reference (nothing copied); the few that Eclipse
# starts itself (its product does this in bundles.info) started here. The rest start lazily.
bundles=
for jar in "$plugins"/*.jar; do
  [ "$jar" = "$framework" ] && continue
  case $(basename "$jar") in
    org.apache.felix.scr-[0-9]*|org.eclipse.equinox.common-[0-9]*|org.eclipse.equinox.event-[0-9]*) start=@2:start ;;
    org.apache.aries.spifly.dynamic.bundle-[0-9]*) start=@2:start ;;
    org.eclipse.core.runtime-[0-9]*) start=@4:start ;;
    *) start= ;;
  esac
  bundles+=${bundles:+,}reference:file:$jar$start
done
# Tests only: COMPANION4J_ECLIPSE_EXTRA_BUNDLES, a ':'-separated list of bundle jars started with
# the rest (e.g. the widget probe of eclipse/app/src/test/probe).
IFS=: read -r -a extra <<<"${COMPANION4J_ECLIPSE_EXTRA_BUNDLES:-}"
for jar in "${extra[@]}"; do
  [ -f "$jar" ] || { echo "run-eclipse.sh: extra bundle $jar is no file" >&2; exit 2; }
  bundles+=,reference:file:$(cd "$(dirname "$jar")" && pwd)/$(basename "$jar")@4:start
done
cat >"$work/configuration/config.ini" <<INI
osgi.bundles=$bundles
osgi.bundles.defaultStartLevel=4
eclipse.application=org.eclipse.ui.ide.workbench
INI

xvfb=
cleanup() {
  [ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
if [ -z "${DISPLAY:-}" ]; then
  command -v Xvfb >/dev/null || { echo "run-eclipse.sh: no DISPLAY and no Xvfb (apt-get install xvfb)" >&2; exit 2; }
  Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp 3>"$work/display" 2>/dev/null &
  xvfb=$!
  for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
  [ -s "$work/display" ] || { echo "run-eclipse.sh: Xvfb did not start" >&2; exit 1; }
  export DISPLAY=:$(cat "$work/display")
fi

projects_property=$(IFS=:; echo "${projects[*]-}")
# Eclipse's own files (~/.eclipse, temporary files) follow HOME and TMPDIR as the CLIs' do.
"$java" \
  -Duser.home="$HOME" -Djava.io.tmpdir="${TMPDIR:-/tmp}" "${install[@]}" \
  -Dcompanion4j.eclipse.readyLine=true -Dcompanion4j.eclipse.projects="$projects_property" \
  -cp "$framework" org.eclipse.core.runtime.adaptor.EclipseStarter \
  -configuration "file:$configuration/" -data "$data" -nosplash &
eclipse=$!
echo "run-eclipse.sh: Eclipse pid $eclipse, log $data/.metadata/.log" >&2
trap 'kill -TERM "$eclipse" 2>/dev/null' TERM INT
# wait returns early when a trapped signal arrives; wait again for the JVM's shutdown hooks.
status=0
wait "$eclipse" || status=$?
while kill -0 "$eclipse" 2>/dev/null; do wait "$eclipse" || status=$?; done
# 143: ended by our SIGTERM, which is how it is meant to end.
[ "$status" -eq 143 ] && status=0
exit "$status"
