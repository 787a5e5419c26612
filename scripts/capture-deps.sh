#!/usr/bin/env bash
# scripts/capture-deps.sh GAME... : installs the Debian packages `g2w capture GAME` needs (the
# engine, its free game data, Xvfb and ffmpeg). Quick when all are present. `make test` runs it
# for freedoom and freedm (one engine, 70 MB of IWADs), the games the CI capture tests play;
# cube2 (270 MB of game data, and a C compiler for its clock shim) only for `make capture`.
# The package lists match `packages` of each game module in g2w/capture/ (a test checks).
set -euo pipefail

packages_for() {
  case "$1" in
    freedoom) echo "dsda-doom freedoom xvfb xauth ffmpeg" ;;
    freedm) echo "dsda-doom freedm xvfb xauth ffmpeg" ;;
    cube2) echo "cube2 cube2-data gcc libc6-dev xvfb xauth ffmpeg" ;;
    *) echo "unknown game: $1 (known: freedoom freedm cube2)" >&2; return 1 ;;
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
