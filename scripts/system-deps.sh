#!/usr/bin/env bash
# Installs the Debian packages g2w needs when they are missing: ffmpeg (peer for benchmarks,
# general tooling), DejaVu fonts (HUD text), the venv module and Chromium (the service page test
# drives it headless) and the PostgreSQL server (the job-store tests start one). Quick when all are present.
set -euo pipefail

missing=()
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null || missing+=(postgresql)  # the job-store tests' server
python_bin="${1:-python3}"
"$python_bin" -c "import ensurepip, venv" >/dev/null 2>&1 || missing+=(python3-venv)
[ ${#missing[@]} -eq 0 ] && exit 0

exec "$(dirname "$0")/apt-install.sh" "${missing[@]}"
