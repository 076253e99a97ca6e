#!/usr/bin/env bash
# Runs every test: format lint, a warning-free build, the unit tests, the end-to-end run of
# the virtual kiosk on a real kernel (when its script is present), then the arm64 lane
# (scripts/test-arm64.sh: Debian trixie's Swift 6.0.3 for amd64 and aarch64, aarch64 unit
# tests under qemu-user, the .debs and their install test, the aarch64 virtual kiosk).
# Usage: scripts/test.sh [--arm64-only | --no-arm64]
set -euo pipefail
cd "$(dirname "$0")/.."
arm64=1
case ${1:-} in
  --arm64-only) arm64=only ;;
  --no-arm64) arm64=0 ;;
  "") ;;
  *) echo "test: unknown argument $1 (--arm64-only, --no-arm64)" >&2 && exit 2 ;;
esac
t_all=$SECONDS
bash scripts/setup.sh
if [ "$arm64" = only ]; then
  echo "== arm64 (scripts/test-arm64.sh)"
  exec scripts/test-arm64.sh
fi

# Each step's seconds, printed as one table when the amd64 half is done (and on a failure),
# so a CI log says where its time went.
timings=()
t_step=$t_all step_label="setup"
# Starts timing the step NAME (the table's word for it), prints its header ("== HEADER",
# default NAME); the previous step's time is noted.
step() {
  timings+=("$(printf '%-20s %5d s' "$step_label" $((SECONDS - t_step)))")
  t_step=$SECONDS step_label=$1
  echo "== ${2:-$1}"
}
print_timings() {
  local rc=$?
  timings+=("$(printf '%-20s %5d s%s' "$step_label" $((SECONDS - t_step)) "$( ((rc == 0)) || echo '  FAILED')")")
  # A failed amd64 half stops the background builds too.
  ((rc == 0)) || [ -z "${arm64_builds:-}" ] || kill -- -"$arm64_builds" 2>/dev/null || true
  echo "== timings (amd64 half)"
  printf '   %s\n' "${timings[@]}"
  printf '   %-20s %5d s\n' "total (amd64 half)" $((SECONDS - t_all))
}
trap print_timings EXIT

step lint "swift format lint"
swift format lint --strict -r Sources Tests Fuzz Package.swift
# No Foundation in Sources: CardModel stays pure, and a static release binary stays ~20 MB
# (Foundation and its ICU data linked statically add ~60 MB to the .deb's binary).
if grep -rln '^import Foundation' Sources; then
  echo "test: the files above import Foundation; use the standard library and KioskSystem instead" >&2
  exit 1
fi
# The executable's folders: App/ uses nothing from Tools/, Shared/ nothing from either.
scripts/check-executable-layers.sh

step build "build (warnings are errors; a target may import only what Package.swift lists for it)"
log=$(mktemp)
swift build --build-tests --explicit-target-dependency-import-check error 2>&1 | tee "$log" | grep -vE '^\[[0-9]+/[0-9]+\]' || true
# SwiftPM's own pkg-config filter warns about glib's '-pthread' (a known SwiftPM quirk,
# not our code); every other warning fails the run.
if grep -E 'warning:' "$log" | grep -v "prohibited flag(s): -pthread" | grep -q .; then
  echo "test: the build printed warnings (above); warnings are bugs" >&2
  exit 1
fi
grep -q 'error:' "$log" && exit 1

# The arm64 lane's builds (scripts/cross-arm64.sh) and its steps that time nothing (the render
# comparison, the .debs, their install tests) run from here on in the background at idle
# priority (SCHED_IDLE: a core the amd64 steps leave idle, e.g. while a lone VM runs, and
# nothing else). The lane waits for them, then runs its unit tests and virtual kiosk.
arm64_background=(--only build --only render --only deb --only install)
arm64_builds=
if [ "$arm64" = 1 ]; then
  mkdir -p .build
  setsid chrt --idle 0 scripts/test-arm64.sh "${arm64_background[@]}" >.build/arm64-builds.log 2>&1 &
  arm64_builds=$!
  echo "== arm64 builds, render comparison, packages and install tests started in the background at idle priority (log .build/arm64-builds.log)"
fi

step "unit tests"
unit_log=$(mktemp) unit_list=$(mktemp)
swift test --skip-build --list-tests >"$unit_list" 2>/dev/null || true
swift test --skip-build 2>&1 | tee "$unit_log"
scripts/unit-counts.sh "$unit_log" "$unit_list"
rm -f "$unit_log" "$unit_list"

step Chromium "report in headless Chromium (scripts/report-browser-test.sh)"
bash scripts/report-browser-test.sh

step hostile "hostile rows through the report in headless Chromium (scripts/report-hostile-test.sh)"
bash scripts/report-hostile-test.sh

step fleet-docs "docs/FLEET.md's steps against PostgreSQL with TLS verify-full (scripts/fleet-docs-test.sh)"
bash scripts/fleet-docs-test.sh

step fuzz "fuzz (libFuzzer, ${KIOSKCARDS_FUZZ_SECONDS:-30} s per parser; crashes in .build/fuzz/crashes/)"
# Any crash fails the run (the crash file is under .build/fuzz/crashes/TARGET/).
bash scripts/fuzz.sh all "${KIOSKCARDS_FUZZ_SECONDS:-30}"

step "deploy checks" "deploy checks (shellcheck, systemd-analyze verify/security, staged install)"
bash deploy/check.sh

step shellcheck "shellcheck (virtual kiosk)"
shellcheck .ci/run deploy/vm/*.sh deploy/vm/guest/*.sh deploy/vm/scenarios/*.sh deploy/vm/scenarios/lib/*.sh \
  scripts/*.sh deploy/debian/postinst deploy/debian/prerm deploy/debian/postrm

if [ -x deploy/vm/e2e.sh ]; then
  step e2e "end to end (virtual kiosk)"
  deploy/vm/e2e.sh
fi

step figures "docs figures (scripts/docs-figures.py: docs/PERFORMANCE.md's figures printed by their commands)"
[ -x .build/release/KioskCards ] || scripts/release-build.sh
figures() {
  python3 scripts/docs-figures.py
  # The linker's function order (deploy/kioskcards.order) against the functions the binary has.
  python3 scripts/exe-order.py .build/release/KioskCards --check
}
# With the arm64 lane they run beside its unit tests, which under qemu-user keep about one core
# busy: what the script compares (instructions, memory, fixed values, each figure's shape) does
# not move with a process on the other core. Their output is printed when those tests are done.
figures_pid=
if [ "$arm64" = 1 ]; then
  figures >.build/docs-figures.log 2>&1 &
  figures_pid=$! t_figures=$SECONDS
  echo "docs figures: started beside the arm64 lane's unit tests (log .build/docs-figures.log)"
else
  figures
fi

# The amd64 half's table now; the arm64 lane prints its own, then the grand total.
trap - EXIT
print_timings
if [ "$arm64" = 1 ]; then
  echo "== arm64 (scripts/test-arm64.sh)"
  t_arm=$SECONDS
  rc=0 builds_rc=0
  wait "$arm64_builds" || builds_rc=$?
  rc=$builds_rc
  echo "== arm64: the builds, render comparison, packages and install tests, run in the background since the amd64 unit tests (waited $((SECONDS - t_arm)) s for them)"
  cat .build/arm64-builds.log
  trap '[ -z "$figures_pid" ] || kill "$figures_pid" 2>/dev/null || true' EXIT
  # 3: the builds failed, and the rest of the lane has nothing to run.
  if [ "$builds_rc" != 3 ]; then
    scripts/test-arm64.sh --only unit-arm64 || rc=$?
  fi
  figures_rc=0
  wait "$figures_pid" || figures_rc=$?
  echo "== docs figures, run beside the arm64 unit tests ($((SECONDS - t_figures)) s$( ((figures_rc == 0)) || echo ', FAILED'))"
  cat .build/docs-figures.log
  ((figures_rc == 0)) || rc=$figures_rc
  figures_pid=
  # The virtual kiosk on a host with nothing else running (its scenarios time touches).
  if [ "$builds_rc" != 3 ]; then
    scripts/test-arm64.sh --only vm || rc=$?
  fi
  echo "== timings (all)"
  printf '   %-20s %5d s\n' "amd64 half" $((t_arm - t_all)) "arm64 lane" $((SECONDS - t_arm)) \
    "total" $((SECONDS - t_all))
  exit "$rc"
fi
