#!/usr/bin/env bash
# Installs the Debian packages g2w needs when they are missing: ffmpeg (peer for benchmarks,
# general tooling), DejaVu fonts (HUD text), the venv module and Chromium (the service page test
# drives it headless). Quick when all are present.
set -euo pipefail

missing=()
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
python_bin="${1:-python3}"
"$python_bin" -c "import ensurepip, venv" >/dev/null 2>&1 || missing+=(python3-venv)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing Debian packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "apt-get failed installing: ${missing[*]}" >&2
  exit 1
fi
rm -f "$log"
