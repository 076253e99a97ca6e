#!/usr/bin/env bash
# Installs what is missing, builds, and runs KioskCards: on the panel when this machine has
# a connected DRM display, otherwise in the virtual kiosk with a VNC display.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build -c release --static-swift-stdlib --product KioskCards
bin=.build/release/KioskCards
if [ -x deploy/vm/preview.sh ] && ! grep -qs '^connected' /sys/class/drm/card*-*/status; then
  exec deploy/vm/preview.sh "$@"
fi
exec "$bin" run --deck "${KIOSK_DECK:-examples/onboarding.json}" "$@"
