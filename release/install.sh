#!/bin/sh
# Installs this unpacked Companion4J release for the current user, no root needed:
# its files to PREFIX/share/companion4j/VERSION and the companion4j command to PREFIX/bin.
#   ./install.sh                  PREFIX is ~/.local
#   ./install.sh --prefix DIR     another PREFIX
#   ./install.sh --uninstall      removes what the install of this version put there
set -eu
usage() {
  echo "usage: install.sh [--prefix DIR] [--uninstall]" >&2
  exit 2
}
src=$(cd "$(dirname "$0")" && pwd)
version=$(cat "$src/VERSION")
# The version names the folder that --uninstall removes: it must be one plain name.
case $version in
  ''|.|..|*/*) echo "install.sh: $src/VERSION does not hold a version" >&2; exit 1 ;;
esac
prefix=${HOME:?HOME is not set}/.local
uninstall=false
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) [ $# -ge 2 ] || usage; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --uninstall) uninstall=true; shift ;;
    -h|--help) usage ;;
    *) echo "install.sh: unknown option $1" >&2; usage ;;
  esac
done
case $prefix in
  /*) ;;
  *) prefix=$(pwd)/$prefix ;;
esac
home=$prefix/share/companion4j/$version
link=$prefix/bin/companion4j
# The installed version, under a name that outlives upgrades: editors load their plugins through it.
current=$prefix/share/companion4j/current

if $uninstall; then
  # Only a link into this version's files is ours to remove.
  if [ -L "$link" ] && [ "$(readlink "$link")" = "$home/bin/companion4j" ]; then
    rm -f "$link"
    echo "Removed $link"
  fi
  if [ -L "$current" ] && [ "$(readlink "$current")" = "$version" ]; then
    rm -f "$current"
  fi
  if [ -d "$home" ]; then
    rm -rf "$home"
    echo "Removed $home"
  fi
  rmdir "$prefix/share/companion4j" 2>/dev/null || true
  # The class caches the noarch launcher recorded; any install left records its own again.
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/companion4j
  if [ -d "$cache" ]; then
    rm -rf "$cache"
    echo "Removed $cache"
  fi
  echo "Companion4J $version is uninstalled."
  exit 0
fi

if [ -e "$link" ] && [ ! -L "$link" ]; then
  echo "install.sh: $link exists and is not a link of an earlier install; move it away first" >&2
  exit 1
fi
if [ "$src" != "$home" ]; then
  rm -rf "$home.new"
  mkdir -p "$home.new"
  # -p keeps the times: the runtime checks its class cache against the jar's.
  cp -pR "$src/." "$home.new/"
  rm -rf "$home"
  mv "$home.new" "$home"
fi
# A first start records the class cache where the archive brought none (a runtime before JDK 25,
# or the noarch zip's, which records it in the user's cache), while the folder is writable.
if ! "$home/bin/companion4j" --version >/dev/null; then
  echo "install.sh: companion4j does not start yet (see above); installed all the same" >&2
fi
mkdir -p "$prefix/bin"
ln -sfn "$home/bin/companion4j" "$link"
ln -sfn "$version" "$current"
echo "Installed Companion4J $version in $home (also $current)"
echo "The companion4j command: $link"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "$prefix/bin is not on your PATH; add it, e.g. in ~/.profile: export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
