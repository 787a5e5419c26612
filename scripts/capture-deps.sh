#!/usr/bin/env bash
# scripts/capture-deps.sh GAME... : installs the Debian packages `g2w capture GAME` needs (the
# engine, its free game data, Xvfb and ffmpeg). Quick when all are present. `make test` runs it
# for freedoom only, the smallest game, which the CI capture test plays.
# The package lists match `packages` of each game module in g2w/capture/ (a test checks).
set -euo pipefail

packages_for() {
  case "$1" in
    freedoom) echo "dsda-doom freedoom xvfb xauth ffmpeg" ;;
    *) echo "unknown game: $1 (known: freedoom)" >&2; return 1 ;;
  esac
}

[ $# -ge 1 ] || { echo "usage: $0 GAME..." >&2; exit 2; }
wanted=()
for game in "$@"; do
  for pkg in $(packages_for "$game"); do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || wanted+=("$pkg")
  done
done
[ ${#wanted[@]} -eq 0 ] && exit 0

exec "$(dirname "$0")/apt-install.sh" "${wanted[@]}"
