#!/usr/bin/env bash
# Renders a terminal screen captured with its colours (tmux capture-pane -e, as the editor
# plugins' tests save them under cli/target/screens/) to a PNG for the docs, with Debian's aha
# and Chromium:
#   scripts/screenshot-terminal.sh cli/target/screens/neovim-review.ansi docs/img/neovim-review.png
set -euo pipefail
in=$1 out=$2
for tool in aha chromium; do
  command -v "$tool" >/dev/null || { echo "screenshot-terminal: needs $tool (apt-get install $tool)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cols=$(awk '{ gsub(/\x1b\[[0-9;]*m/, ""); if (length($0) > n) n = length($0) } END { print n }' "$in")
rows=$(wc -l <"$in")
# 8.4 by 17 pixels per cell in 14px DejaVu Sans Mono; a margin of 12 on each side.
width=$(( cols * 84 / 10 + 24 )) height=$(( rows * 17 + 24 ))
{
  echo '<!doctype html><meta charset="utf-8"><style>'
  echo 'body{margin:0;background:#1e1e1e;color:#d4d4d4}'
  echo 'pre{margin:0;padding:12px;font:14px/17px "DejaVu Sans Mono",monospace;white-space:pre}'
  echo '</style><pre>'
  # aha draws a black background grey; on this dark page, black is the page itself.
  sed 's/\x1b\[40m/\x1b[49m/g' "$in" | aha --black --no-header
  echo '</pre>'
} >"$work/screen.html"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --window-size="$width,$height" --screenshot="$work/screen.png" "file://$work/screen.html" 2>/dev/null
mv "$work/screen.png" "$out"
echo "$out: ${cols}x${rows} cells, ${width}x${height} px"
