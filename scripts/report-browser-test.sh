#!/usr/bin/env bash
# The report in real headless Chromium: simulate seeded demo data, write the report as HTML and
# JSON, and check the page (scripts/report-browser-check.py: no console errors, no network
# requests, every chart drew and plots the JSON's data as Chart.js holds it, the page's figures
# equal the JSON's, no unit wrapped apart from its number, no horizontal scroll on a phone), with
# titles from the deck files and the comparison with the previous period, and the QR codes
# shown (take-it-with-you.json). Screenshots go to ${1:-.build/report-browser}.
# Needs chromium and libjs-chart.js (scripts/setup.sh installs both). Usage: scripts/report-browser-test.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/report-browser}
bin=${KIOSK_TEST_EXECUTABLE:-.build/debug/KioskCards}
rm -rf "$out"
mkdir -p "$out"
"$bin" simulate --deck examples/seed-stack.json --data "$out/data" --visitors 400 --seed 42 --kiosk lobby-1
"$bin" simulate --deck examples/seed-stack.json --data "$out/data" --visitors 300 --seed 43 --kiosk lobby-2
# A deck in six languages, so the languages chart has several slices; a six-card quiz, so the
# funnel, drop-off and position charts show decks of different lengths side by side.
"$bin" simulate --deck examples/multilingual.json --data "$out/data" --visitors 300 --seed 44 --kiosk lobby-3
"$bin" simulate --deck examples/quiz-flashcards.json --data "$out/data" --visitors 300 --seed 45 --kiosk lobby-4
# Two cards' QR codes and the end state's: the "QR codes shown" table.
"$bin" simulate --deck examples/take-it-with-you.json --data "$out/data" --visitors 200 --seed 46 --kiosk lobby-5
# Four days of the simulated week and a half, so the page compares them with the four before;
# the deck files give the cards their titles.
args=(--data "$out/data" --since 2026-11-06 --until 2026-11-10)
for deck in seed-stack multilingual quiz-flashcards take-it-with-you; do args+=(--deck-file "examples/$deck.json"); done
TZ=UTC "$bin" report "${args[@]}" --out "$out/report.html"
TZ=UTC "$bin" report "${args[@]}" --format json >"$out/report.json"
python3 scripts/report-browser-check.py "$out/report.html" "$out/report.json" "$out"
