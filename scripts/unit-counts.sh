#!/usr/bin/env bash
# Prints "unit tests: N ran, M skipped" for a swift test run, then each skip with its reason:
# N is every test the package lists (swift test --list-tests) less those skipped by name
# ("Test NAME skipped: why") or with their whole suite ("Suite NAME skipped: why").
# Usage: scripts/unit-counts.sh RUN.log LIST.txt
set -euo pipefail
log=$1 list=$2
total=$(grep -c . "$list" || true)
skipped=$(grep -cE 'Test [^ ]+\) skipped' "$log" || true)
while read -r suite; do
  skipped=$((skipped + $(grep -c "\.$suite/" "$list" || true)))
done < <(grep -oE 'Suite [A-Za-z0-9_]+ skipped' "$log" | awk '{ print $2 }' | sort -u)
echo "unit tests: $((total - skipped)) ran, $skipped skipped"
grep -E '(Test|Suite) .* skipped' "$log" | sed 's/^/   /' || true
