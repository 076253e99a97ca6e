#!/usr/bin/env bash
# Installs what is missing, builds, and runs KioskCards: on the panel when this machine has
# a connected DRM display, otherwise in the virtual kiosk with a VNC display
# (deploy/vm/preview.sh: --deck PATH may be any deck on this machine, its folder comes along,
# edits reload, the decisions come back to --data DIR).
#
# Usage: scripts/run.sh [--deck PATH] [--data DIR] [ARGUMENTS of `KioskCards run`...]
#   env KIOSK_DECK   the deck when --deck is not given (default examples/onboarding.json)
set -euo pipefail
# Paths given relative to where this was started (the script works from the repo's root).
args=()
while (($#)); do
  case $1 in
    --deck | --data)
      [ $# -ge 2 ] || { echo "run.sh: $1 needs a path" >&2 && exit 2; }
      p=$2
      [[ $p == /* ]] || [ ! -e "$p" ] || p=$(realpath "$p")
      [[ $1 != --data || $p == /* ]] || p=$PWD/$p
      args+=("$1" "$p") && shift 2
      ;;
    *) args+=("$1") && shift ;;
  esac
done
set -- "${args[@]}"
cd "$(dirname "$0")/.."
bash scripts/setup.sh
scripts/release-build.sh
bin=.build/release/KioskCards
if [ -x deploy/vm/preview.sh ] && ! grep -qs '^connected' /sys/class/drm/card*-*/status; then
  exec deploy/vm/preview.sh "$@"
fi
deck=()
[[ " $* " == *" --deck "* || " $* " == *" --deck="* ]] || deck=(--deck "${KIOSK_DECK:-examples/onboarding.json}")
exec "$bin" run "${deck[@]}" "$@"
