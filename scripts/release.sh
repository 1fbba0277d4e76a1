#!/usr/bin/env bash
# Builds the release archives in target/release/:
#   companion4j-VERSION-linux-x64.tar.gz   with a runtime made by jlink: needs nothing installed
#   companion4j-VERSION-noarch.zip         needs a Java 17 or later on PATH
# Each holds bin/companion4j, lib/ (the jar), install.sh, the editor plugins (editors/, with the
# Emacs package tarball), the two NetBeans modules (the companion and its Java support) and their
# update-centre catalog (netbeans/), the Eclipse plugin as a p2 repository zip (eclipse/), and the
# docs.
#
# usage: scripts/release.sh [--skip-build] [--without-netbeans] [--without-eclipse] [--out DIR]
#   --skip-build        use the jar, .nbm and zip files an earlier `mvn package` left in target/
#   --without-netbeans  leave out the NetBeans modules (they are built after the cli module)
#   --without-eclipse   leave out the Eclipse plugin (built with -P eclipse, on a JDK 21 or newer:
#                       ECLIPSE_JAVA_HOME, default Temurin 25)
#   --out DIR           where the archives go (default target/release)
# The runtime comes from the newest JDK installed: the java on PATH or one under /usr/lib/jvm
# (COMPANION4J_JDKS, colon-separated), or COMPANION4J_JDK=/path/to/jdk.
set -euo pipefail
repo="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
build=true netbeans=true eclipse=true out="$repo/target/release"
while (($#)); do
  case $1 in
    --skip-build) build=false; shift ;;
    --without-netbeans) netbeans=false; shift ;;
    --without-eclipse) eclipse=false; shift ;;
    --out) out="$(mkdir -p "$2" && cd "$2" && pwd)"; shift 2 ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "release: unknown option $1 (--help lists them)" >&2; exit 2 ;;
  esac
done
say() { echo "release: $*" >&2; }

# The project's version: the root pom's first <version>, which has no parent.
version="$(sed -n 's:.*<version>\(.*\)</version>.*:\1:p' "$repo/pom.xml" | head -n1)"
jar="$repo/cli/target/companion4j.jar"
# The NetBeans modules the release carries, as code name base and .nbm: the companion, and its
# Java support, which needs NetBeans' Java modules (a module of its own, so that the companion
# still installs in a NetBeans without them).
nbms=(
  "dev.companion4j.netbeans companion4j-netbeans-$version.nbm"
  "dev.companion4j.netbeans.java companion4j-netbeans-java-$version.nbm"
)
# The update-centre catalog, with the .nbm files beside it (the catalog names them relatively).
# The goal lists the .nbm files of every project in its reactor, and resolves the modules'
# dependencies: so it runs in the reactor that packages the modules and what they need, and
# nothing else.
site="$repo/target/netbeans_site"
# The Eclipse plugin: the p2 repository zip its build makes (Help > Install New Software > Archive).
eclipse_zip="$repo/eclipse/repository/target/companion4j-eclipse-$version.zip"

if $build; then
  if $netbeans; then
    say "building cli, netbeans/module and netbeans/java with Maven"
    rm -rf "$site"
    (cd "$repo" && mvn -B -ntp -q -DskipTests -pl cli,netbeans/module,netbeans/java -am package nbm:autoupdate) >&2
  else
    say "building cli with Maven"
    (cd "$repo" && mvn -B -ntp -q -DskipTests -pl cli -am package) >&2
  fi
  if $eclipse; then
    say "building the Eclipse plugin's p2 repository with Maven"
    eclipse_java=(); [[ -n "${ECLIPSE_JAVA_HOME:-}" ]] && eclipse_java=("-Declipse.java.home=$ECLIPSE_JAVA_HOME")
    (cd "$repo" && mvn -B -ntp -q -DskipTests -P eclipse "${eclipse_java[@]}" -pl eclipse/repository -am package) >&2
  fi
fi
[[ -f "$jar" ]] || { say "no $jar: run without --skip-build"; exit 1; }
if $eclipse && [[ ! -f "$eclipse_zip" ]]; then say "no $eclipse_zip: run without --skip-build"; exit 1; fi
if $netbeans; then
  for entry in "${nbms[@]}" "- updates.xml"; do
    [[ -f "$site/${entry#* }" ]] || { say "no $site/${entry#* }: run without --skip-build"; exit 1; }
  done
fi

# The newest JDK with jlink.
feature_of() {
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null || true
}
if [[ -n "${COMPANION4J_JDK:-}" ]]; then
  jdk="$COMPANION4J_JDK"
else
  jdk="" best=0 candidates=()
  if command -v java >/dev/null; then candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"); fi
  IFS=: read -r -a jdk_dirs <<< "${COMPANION4J_JDKS-/usr/lib/jvm}"
  for dir in "${jdk_dirs[@]}"; do
    for candidate in "$dir"/*/; do candidates+=("${candidate%/}"); done
  done
  for candidate in "${candidates[@]}"; do
    [[ -x "$candidate/bin/jlink" ]] || continue
    f="$(feature_of "$candidate")"
    if (( ${f:-0} > best )); then jdk="$candidate" best="$f"; fi
  done
fi
[[ -x "$jdk/bin/jlink" ]] || { say "no JDK with jlink found (set COMPANION4J_JDK)"; exit 1; }
feature="$(feature_of "$jdk")"
(( feature >= 17 )) || { say "$jdk is Java $feature; the runtime needs 17 or later"; exit 1; }

name="companion4j-$version"
work="$(mktemp -d "${TMPDIR:-/tmp}/companion4j-release.XXXXXX")"
trap 'rm -rf "$work"' EXIT
tree="$work/$name"
mkdir -p "$tree/bin" "$tree/lib" "$tree/editors" "$tree/docs"

say "assembling $name"
cp "$repo/release/bin/companion4j" "$tree/bin/"
cp "$repo/release/install.sh" "$tree/"
echo "$version" > "$tree/VERSION"
cp "$jar" "$tree/lib/companion4j.jar"
cp "$repo/cli/jvm.options" "$tree/lib/"
cp "$repo/README.md" "$tree/"
cp -R "$repo/docs/." "$tree/docs/"
cp "$repo/editors/README.md" "$tree/editors/"
for editor in neovim vim emacs; do
  # The plugin's own files only: help tags are made by the editor that reads them.
  (cd "$repo/editors" && git -C "$repo" ls-files -z -- "editors/$editor" | sed -z 's:^editors/::' | xargs -0 cp --parents -t "$tree/editors")
done

# The Emacs package for package-install-file: NAME-VERSION/ with a NAME-pkg.el, as a tar.
el="$repo/editors/emacs/companion4j.el"
el_version="$(sed -n 's/^;; Version: *//p' "$el" | head -n1)"
el_summary="$(sed -n '1s/^;;; companion4j.el --- \(.*\)  -\*-.*/\1/p' "$el")"
el_requires="$(sed -n 's/^;; Package-Requires: *//p' "$el" | head -n1)"
pkg="$work/emacs/companion4j-$el_version"
mkdir -p "$pkg"
cp "$el" "$pkg/"
printf '(define-package "companion4j" "%s" "%s" (quote %s))\n' "$el_version" "$el_summary" "$el_requires" > "$pkg/companion4j-pkg.el"
tar -C "$work/emacs" --owner=0 --group=0 -cf "$tree/editors/emacs/companion4j-$el_version.tar" "companion4j-$el_version"

if $netbeans; then
  mkdir -p "$tree/netbeans"
  cp "$site/updates.xml" "$tree/netbeans/"
  for entry in "${nbms[@]}"; do cp "$site/${entry#* }" "$tree/netbeans/"; done
  # The catalog must offer exactly these modules, each by the .nbm beside it: an update centre
  # that reads it installs nothing otherwise, and must not offer the test application's fixtures.
  # Each <module> element as "codenamebase distribution", the distribution without a leading ./.
  listed="$(tr '\n' ' ' < "$tree/netbeans/updates.xml" | grep -o '<module [^>]*>' \
    | sed -E 's:.*[[:space:]]codenamebase="([^"]*)".*:\1 &:; s:^([^ ]*) .*[[:space:]]distribution="(\./)?([^"]*)".*:\1 \3:' \
    | sort || true)"
  expected="$(printf '%s\n' "${nbms[@]}" | sort)"
  if [[ "$listed" != "$expected" ]]; then
    say "$site/updates.xml does not list exactly these modules by the .nbm files beside it:"
    sed 's/^/release:   /' <<< "$expected" >&2
    say "it lists:"
    sed 's/^/release:   /' <<< "${listed:-nothing}" >&2
    exit 1
  fi
fi

if $eclipse; then
  mkdir -p "$tree/eclipse"
  cp "$eclipse_zip" "$tree/eclipse/"
fi

mkdir -p "$out"
rm -f "$out/$name-noarch.zip" "$out/$name-linux-x64.tar.gz"
(cd "$work" && zip -qr -X "$out/$name-noarch.zip" "$name")

say "linking a runtime from $jdk (Java $feature)"
modules="$("$jdk/bin/jdeps" --ignore-missing-deps --multi-release "$feature" --print-module-deps "$jar")"
# What jdeps cannot see: Jetty serves the review page out of the jar through the zip file system
# provider, and reads the process's uptime through java.management, both found at run time.
modules+=",jdk.zipfs,java.management"
link=(--add-modules "$modules" --strip-debug --no-man-pages --no-header-files --output "$tree/runtime")
if (( feature >= 21 )); then link+=(--compress zip-9); else link+=(--compress=2); fi
# Before JDK 25 the launcher's class-data archive builds on the runtime's default one.
if (( feature < 25 )); then link+=(--generate-cds-archive); fi
"$jdk/bin/jlink" "${link[@]}" >&2
# The class cache for this runtime and jar, recorded by the launcher's own first start. From JDK 25
# on it names the jar by its path relative to the runtime, so it holds wherever the tree is
# unpacked; an older runtime's names the build's path, and install.sh records one at install.
if (( feature >= 25 )); then
  "$tree/bin/companion4j" --version >/dev/null
  [[ -f "$tree/lib/companion4j.aot" ]] || { say "the launcher recorded no class cache"; exit 1; }
fi
tar -C "$work" --owner=0 --group=0 -czf "$out/$name-linux-x64.tar.gz" "$name"

ls -l "$out/$name-linux-x64.tar.gz" "$out/$name-noarch.zip" >&2
