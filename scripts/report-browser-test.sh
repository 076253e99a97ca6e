#!/usr/bin/env bash
# The report in real headless Chromium: simulate seeded demo data, write the report as HTML and
# JSON, and check the page (scripts/report-browser-check.py: no console errors, no network
# requests, every chart drew and plots the JSON's data as Chart.js holds it, the page's figures
# equal the JSON's, no horizontal scroll on a phone). Screenshots go to ${1:-.build/report-browser}.
# Needs chromium and libjs-chart.js (scripts/setup.sh installs both). Usage: scripts/report-browser-test.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/report-browser}
bin=${KIOSK_TEST_EXECUTABLE:-.build/debug/KioskCards}
rm -rf "$out"
mkdir -p "$out"
"$bin" simulate --deck examples/seed-stack.json --data "$out/data" --visitors 400 --seed 42 --kiosk lobby-1
"$bin" simulate --deck examples/seed-stack.json --data "$out/data" --visitors 150 --seed 43 --kiosk lobby-2
# A deck in six languages, so the languages chart has several slices; a six-card quiz, so the
# funnel, drop-off and position charts show decks of different lengths side by side.
"$bin" simulate --deck examples/multilingual.json --data "$out/data" --visitors 120 --seed 44 --kiosk lobby-3
"$bin" simulate --deck examples/quiz-flashcards.json --data "$out/data" --visitors 150 --seed 45 --kiosk lobby-4
TZ=UTC "$bin" report --data "$out/data" --out "$out/report.html"
TZ=UTC "$bin" report --data "$out/data" --format json >"$out/report.json"
python3 scripts/report-browser-check.py "$out/report.html" "$out/report.json" "$out"
