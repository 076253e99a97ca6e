#!/usr/bin/env bash
# An attacker's rows through the real report in real headless Chromium: payloads (event
# handlers, </script>, javascript: URLs, attribute breakers) written into a simulated data
# directory's kiosk ids, deck ids, card ids, end reasons, input methods and languages must show
# as text, run nothing and request nothing (scripts/report-hostile-check.py says how it checks).
# Needs chromium and libjs-chart.js (scripts/setup.sh installs both).
# Usage: scripts/report-hostile-test.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/report-hostile}
bin=${KIOSK_TEST_EXECUTABLE:-.build/debug/KioskCards}
rm -rf "$out"
mkdir -p "$out"
python3 scripts/report-hostile-check.py "$bin" "$out"
