#!/usr/bin/env bash
# scripts/apt-install.sh PKG... : apt-get install the given Debian packages quietly (sudo when
# not root), printing apt's log only when it fails. Shared by system-deps.sh and capture-deps.sh.
set -euo pipefail
[ $# -ge 1 ] || exit 0
echo "installing Debian packages: $*"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "$@"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "apt-get failed installing: $*" >&2
  exit 1
fi
rm -f "$log"
