#!/bin/sh
# A "before" tree for the behaviour guards and --compare-tree: the work tree as it is
# (other engineers' uncommitted changes included) with the given files taken from REV.
#   sh bench/mkbase.sh /tmp/tsm-before REV file...
set -e
dst=$1; rev=$2; shift 2
rm -rf "$dst"; mkdir -p "$dst"
cp -r "$(dirname "$0")/../tsm_tui" "$dst/"
find "$dst" -name __pycache__ -prune -exec rm -rf {} +
for f in "$@"; do git -C "$(dirname "$0")/.." show "$rev:$f" > "$dst/$f"; done
