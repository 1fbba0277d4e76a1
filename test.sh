#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs what the tests need
# (Debian packages when missing, the pinned npm test peers), then builds and tests
# every module with Maven. CI runs exactly this (see .ci/run).
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages the tests drive: Node for the real CLIs, ps (the CLIs walk the
# process tree), tmux (terminal chat), Xvfb (NetBeans and Eclipse GUI tests), Chromium (review
# page), Neovim, Vim and Emacs (editor plugins), unshare and mount (the version matrix gives old
# CLIs a hosts file of their own), ip and nsenter (the remote test's network namespace), zip and
# unzip (the release archive's test).
declare -A wanted=(
  [node]=nodejs [npm]=npm [ps]=procps [tmux]=tmux [xvfb-run]=xvfb [xauth]=xauth
  [chromium]=chromium [nvim]=neovim [vim]=vim [emacs]=emacs-nox [curl]=curl
  [unshare]=util-linux [mount]=mount [ip]=iproute2 [nsenter]=util-linux [zip]=zip [unzip]=unzip
)
missing=()
for cmd in "${!wanted[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${wanted[$cmd]}")
done
# Emacs' eglot (not built into Emacs 28) and the C language server it runs, for EmacsPluginIT.
command -v clangd >/dev/null 2>&1 || missing+=(clangd)
dpkg-query -W -f='${Status}' elpa-eglot 2>/dev/null | grep -q 'ok installed' || missing+=(elpa-eglot)
if ((${#missing[@]})); then
  echo "test.sh: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The real CLIs and other npm peers, as pinned in the lockfile. Not `npm ci`: Qwen Code 0.24.4
# lists platform packages that were never published (@teddyzhu/clipboard-darwin-arm64@0.0.5 …),
# so no lockfile can hold them and `npm ci` refuses; `npm install` keeps the locked versions.
(cd test-peers && npm install --no-audit --no-fund --loglevel=error)
# The version matrix runs the oldest supported release of each CLI besides the pinned newest
# (CliVersion.inCi); scripts/cli-matrix.sh installs and runs them all. Only their IdeClient runs:
# no install scripts.
for release in qwen-0.1.3 gemini-0.8.2; do
  (cd "test-peers/versions/$release" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error)
done

# The Eclipse IDE's bundles need Java 21 or newer: the eclipse profile compiles the plugin with that
# JDK's javac and runs Eclipse and p2 on it (docs/eclipse-internals.md). No such JDK fails the run.
eclipse_java_home=${ECLIPSE_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
eclipse_java_version=$("$eclipse_java_home/bin/java" -XshowSettings:properties -version 2>&1 \
  | sed -n 's/^ *java.specification.version = //p' || true)
if [[ -z $eclipse_java_version ]] || ((${eclipse_java_version%%.*} < 21)); then
  echo "test.sh: the Eclipse tests need a JDK 21 or newer (Temurin 25) at $eclipse_java_home;" \
    "install it (apt-get install temurin-25-jdk) or set ECLIPSE_JAVA_HOME" >&2
  exit 1
fi
export ECLIPSE_JAVA_HOME=$eclipse_java_home

# NetBeans and Eclipse tests open real windows: give them a virtual display.
xvfb-run -a -s "-screen 0 1600x1000x24" mvn -B -ntp -P eclipse -Declipse.java.home="$eclipse_java_home" verify "$@"
