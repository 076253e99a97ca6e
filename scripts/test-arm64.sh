#!/usr/bin/env bash
# The arm64 lane of scripts/test.sh (also run on its own): Debian trixie's Swift 6.0.3 builds
# for amd64 and aarch64, their unit tests on trixie's libraries (aarch64 under qemu-user),
# the render comparison x86-64 vs aarch64, both .debs (lintian), their install test in clean
# trixie chroots, and the core virtual-kiosk scenarios on an emulated aarch64 machine.
#
# Usage: scripts/test-arm64.sh [--write-golden] [--amd64-tests] [--skip STEP]... [--only STEP]...
#   --write-golden  write the golden set of trixie's cairo/pango (amd64 6.0.3 build), then test
#   --amd64-tests   also build and run the unit tests on amd64 with 6.0.3 (--write-golden does);
#                   by default the 6.0.3 tests are the aarch64 ones (same compiler and libraries)
#   --skip STEP     leave out a step: build, unit-amd64, unit-arm64, render, deb, install, vm
#   --only STEP     run just that step; repeated, just those (scripts/test.sh runs the builds and
#                   the steps that time nothing, render, deb and install, in the background)
# Needs root (debootstrap, chroot, mount namespaces) and scripts/setup.sh's packages.
# Caches: ~/.cache/kioskcards-arm64 (chroots, sysroot, SDK: ~6 GB), ~/.cache/kioskcards-vm-arm64.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || exec sudo --preserve-env=PATH,KIOSK_ARM64_CACHE,KIOSK_VM_CACHE "$0" "$@"
# shellcheck source=scripts/lib-trixie.sh
source scripts/lib-trixie.sh

write_golden=0 amd64_tests=0 skip=" " only=
while [ $# -gt 0 ]; do
  case $1 in
    --write-golden) write_golden=1 amd64_tests=1 ;;
    --amd64-tests) amd64_tests=1 ;;
    --skip) skip+="$2 "; shift ;;
    --only) only+=" $2 "; shift ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test-arm64: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

t_all=$SECONDS
timings=()
failures=()
step() {
  local name=$1 label=$2 t0=$SECONDS
  shift 2
  if [[ $skip == *" $name "* ]] || { [ -n "$only" ] && [[ $only != *" $name "* ]]; }; then
    [ -n "$only" ] || echo "== arm64: $label: skipped (--skip $name)"
    return 0
  fi
  echo "== arm64: $label"
  if "$@"; then
    timings+=("$(printf '%-44s %5d s' "$label" $((SECONDS - t0)))")
  else
    timings+=("$(printf '%-44s %5d s  FAILED' "$label" $((SECONDS - t0)))")
    failures+=("$label")
  fi
}

sdk=(--swift-sdks-path "$ARM64_MOUNT/sdk" --swift-sdk "$SDK_NAME" --scratch-path .build-arm64)

# swift test in the chroot; prints the summary line, how many ran and were skipped, and the
# failing tests.
# UNIT_KEEP / UNIT_DROP (regexes): count only the listed tests that match UNIT_KEEP and not
# UNIT_DROP (the run's --filter/--skip must select the same ones; --list-tests ignores them).
unit_tests() {
  local log list listing=() a skip_next=0
  log=$(mktemp)
  list=$(mktemp)
  for a in "$@"; do
    if [ "$skip_next" = 1 ]; then skip_next=0; elif [ "$a" = --skip ] || [ "$a" = --filter ]; then
      skip_next=1
    else listing+=("$a"); fi
  done
  build_chroot_run "${listing[@]}" --list-tests 2>/dev/null | grep -E "${UNIT_KEEP:-.}" |
    grep -vE "${UNIT_DROP:-^$}" >"$list" || true
  if build_chroot_run "$@" >"$log" 2>&1; then
    grep -E '^✔ Test run with|Executed [0-9]+ tests' "$log" | tail -n 1
    scripts/unit-counts.sh "$log" "$list"
    rm -f "$log" "$list"
  else
    grep -E '✘|error:' "$log" | grep -v 'skipped' | head -n 40
    grep -E 'Test run with' "$log" | tail -n 1
    scripts/unit-counts.sh "$log" "$list"
    echo "test-arm64: unit tests failed (log $log)" >&2
    return 1
  fi
}

unit_amd64() {
  if [ "$write_golden" = 1 ]; then
    build_chroot_run env KIOSK_WRITE_GOLDEN=1 swift test --skip-build --scratch-path .build-603 \
      --filter Golden >/dev/null 2>&1 || true
    echo "goldens written: $(ls -d Tests/KioskCardsTests/Fixtures/golden/cairo-*/)"
  fi
  unit_tests swift test --skip-build --scratch-path .build-603
}

# Under qemu-user every instruction of the test process is emulated. The suites whose subject
# is the fleet's and the report's SQL (run by the native PostgreSQL server; the Swift around it
# has nothing architecture-specific) and the day-long soak run natively on amd64 (scripts/test.sh's
# unit tests); from aarch64 two fleet tests show libpq, TLS verify-full and a whole sync work.
# So does the replay's memory bound over a long recording (a streaming reader's buffers, the
# same on both): emulated, its 200 000 events were the run's last test by about two minutes.
# So does the store's SIGKILL test: under qemu-user its syscalls (fsync, the kill) reach the
# host's kernel as they do natively, and emulated, a round of starting store-stress and killing
# it took 45 s, so one round in a loaded run printed nothing in the 60 s a round is given (the
# store's other suites run emulated, on trixie's SQLite).
QEMU_NATIVE_ONLY='\.(Fleet(Tests|DeckTests|HostileTests|ReportTests|RolloutTests|ScreenshotTests)|Report(Tests|DeckTests|CardTrendTests)|SoakTests)/|\.InputRecordingStreamTests/replayMemoryIsFlatInTheRecordingsLength\(|\.StoreDurabilityTests/reportedStoredDecisionsSurviveKillNine\('
QEMU_FLEET='\.FleetTests/(syncSendsEverythingOnceWithRetractionsAndClockFields|verifyFullConnectsOnlyToTheRightCertificateAndName)\('

unit_arm64() {
  ensure_binfmt
  local listed
  listed=$(mktemp)
  # QEMU_LD_PREFIX: the loader, libraries, fonts and fontconfig's files come from the sysroot
  # (trixie's arm64 packages), also for the KioskCards processes the tests spawn.
  build_chroot_run env "QEMU_LD_PREFIX=$ARM64_MOUNT/sysroot" swift test --skip-build "${sdk[@]}" \
    --list-tests >"$listed" 2>/dev/null || true
  echo "not run under qemu-user: $(grep -E "$QEMU_NATIVE_ONLY" "$listed" | grep -vcE "$QEMU_FLEET" || true)" \
    "of $(grep -c . "$listed" || true) tests, the fleet's and the report's SQL suites, the soak, the replay's memory bound and the store's SIGKILL rounds"
  echo "   (architecture-neutral; they run natively in scripts/test.sh's unit tests)"
  rm -f "$listed"
  UNIT_DROP="$QEMU_NATIVE_ONLY" unit_tests env "QEMU_LD_PREFIX=$ARM64_MOUNT/sysroot" \
    swift test --skip-build "${sdk[@]}" --skip "$QEMU_NATIVE_ONLY" &&
    UNIT_KEEP="$QEMU_FLEET" unit_tests env "QEMU_LD_PREFIX=$ARM64_MOUNT/sysroot" \
      swift test --skip-build "${sdk[@]}" --filter "$QEMU_FLEET"
}

# The same frames from the x86-64 and the aarch64 release binaries on the same (trixie)
# libraries and fonts: they must be pixel-identical.
render_compare() {
  ensure_binfmt
  local dir=.build-arm64/render-compare
  rm -rf "$dir" && mkdir -p "$dir"
  # shellcheck disable=SC2016  # expanded inside the chroot
  build_chroot_run bash -c '
    set -euo pipefail
    dir=$1 sysroot=$2
    frames=(
      "stack|examples/onboarding.json|--gesture|drag -120 30"
      "list|examples/seed-list.json|--gesture|drag -150 0"
      "detail|examples/seed-list.json|--gesture|tap 200 80|--at|1000"
      "products|examples/products/products.json|--gesture|drag 90 0"
      "quiz|examples/quiz-flashcards.json"
    )
    for f in "${frames[@]}"; do
      IFS="|" read -r -a a <<<"$f"
      name=${a[0]} deck=${a[1]}
      .build-603/release/KioskCards render --deck "$deck" --size 800x480 --out "$dir/$name-x86_64.png" "${a[@]:2}"
      QEMU_LD_PREFIX=$sysroot .build-arm64/release/KioskCards render --deck "$deck" --size 800x480 \
        --out "$dir/$name-aarch64.png" "${a[@]:2}"
    done' sh "$dir" "$ARM64_MOUNT/sysroot"
  local pairs=() f
  for f in "$dir"/*-x86_64.png; do pairs+=("$f" "${f%-x86_64.png}-aarch64.png"); done
  python3 scripts/png-diff.py "${pairs[@]}" | sed "s|$dir/||g"
}

if [ "$amd64_tests" = 1 ]; then
  step build "builds: aarch64 + amd64 with swiftlang 6.0.3 (scripts/cross-arm64.sh)" scripts/cross-arm64.sh
  step unit-amd64 "unit tests, amd64, swiftlang 6.0.3, trixie libraries" unit_amd64
else
  step build "builds: aarch64 (+ tests) and amd64 with swiftlang 6.0.3 (scripts/cross-arm64.sh --no-amd64-tests)" \
    scripts/cross-arm64.sh --no-amd64-tests
  [ -n "$only" ] || echo "== arm64: unit tests, amd64, swiftlang 6.0.3: not run (the aarch64 run below is 6.0.3 on the same libraries; --amd64-tests runs them)"
fi
# Without the builds the other steps have nothing to run: exit 3 says so.
if ((${#failures[@]})); then
  printf '   %s\n' "${timings[@]}"
  echo "arm64: FAILED: $(printf '%s; ' "${failures[@]}" | sed 's/; $//'); the other steps need the builds" >&2
  exit 3
fi
step unit-arm64 "unit tests, aarch64 under qemu-user, trixie libraries" unit_arm64
step render "render: x86-64 vs aarch64 build, same libraries" render_compare
step deb "packages + lintian (scripts/package.sh)" scripts/package.sh --no-build
step install "install tests in clean trixie chroots (scripts/test-deb.sh)" scripts/test-deb.sh
step vm "virtual kiosk, aarch64 (deploy/vm/e2e.sh --arch arm64)" \
  deploy/vm/e2e.sh --arch arm64 --no-build 10 20 30 50 51 52 90

echo "== arm64: timings"
printf '   %s\n' "${timings[@]}"
printf '   %-44s %5d s\n' total $((SECONDS - t_all))
if ((${#failures[@]})); then
  echo "arm64: FAILED: $(printf '%s; ' "${failures[@]}" | sed 's/; $//')"
  exit 1
fi
echo "arm64: all steps passed"
