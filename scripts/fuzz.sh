#!/usr/bin/env bash
# Builds and runs a libFuzzer harness (Fuzz/*Harness.swift) over the project's parsers.
# Usage: scripts/fuzz.sh TARGET SECONDS      TARGET: json, deck, config, evemu, decoder or all (0 s: no limit)
#        scripts/fuzz.sh TARGET SECONDS -- ARGS…   extra libFuzzer arguments; with files, runs just those
# The harnesses are built with plain swiftc (-sanitize=fuzzer,address), module by module like
# SwiftPM does, into .build/fuzz/ — apart from the normal build, which they never touch. Seeds
# (examples/, deploy/kiosk.conf.example, the test fixtures and their touch recordings) are copied
# into .build/fuzz/corpus/TARGET, which keeps what each run finds; crashes go to
# .build/fuzz/crashes/TARGET/. Exit status: 0 no crash, 1 a crash (its file is printed), 2 usage.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: scripts/fuzz.sh json|deck|config|evemu|decoder|all SECONDS [-- libFuzzer args]" >&2
  exit 2
}
[ $# -ge 2 ] || usage
target=$1 seconds=$2
shift 2
[ "${1:-}" = "--" ] && shift
[[ $seconds =~ ^[0-9]+$ ]] || usage

if [ "$target" = all ]; then
  targets=(json deck config evemu decoder)
  jobs=${KIOSKCARDS_FUZZ_JOBS:-$(nproc)}
  # Built in waves, side by side within a wave (a whole-module compile runs on one core):
  # CardModel, KioskSystem, the three pipeline modules (each needs only those two), then the
  # five harnesses' links. Then fuzzed side by side, one a core (libFuzzer runs on one): each
  # still gets its SECONDS. Outputs are printed in order.
  wave() { # wave VAR VALUE...: one run of this script per VALUE with VAR=VALUE, side by side
    local var=$1 pids=() p status=0
    shift
    for v in "$@"; do
      env "$var=$v" KIOSK_FUZZ_BUILD_ONLY=1 "$0" json "$seconds" &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || status=1; done
    return $status
  }
  wave KIOSK_FUZZ_MODULE CardModel || exit 1
  wave KIOSK_FUZZ_MODULE KioskSystem || exit 1
  wave KIOSK_FUZZ_MODULE KioskDeckFiles KioskInput KioskDisplay || exit 1
  wave KIOSK_FUZZ_TARGET "${targets[@]}" || exit 1
  dir=$(mktemp -d)
  running=0
  for t in "${targets[@]}"; do
    ("$0" "$t" "$seconds" "$@" >"$dir/$t.out" 2>&1; echo $? >"$dir/$t.status") &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
      wait -n || true
      running=$((running - 1))
    fi
  done
  wait
  status=0
  for t in "${targets[@]}"; do
    cat "$dir/$t.out"
    [ "$(cat "$dir/$t.status" 2>/dev/null)" = 0 ] || status=1
  done
  rm -rf "$dir"
  exit $status
fi

root=$PWD
out=$root/.build/fuzz
modules=$out/modules
mkdir -p "$modules" "$out/bin"

# One flag set for every module and harness: Swift 6 mode, testable (the harnesses reach
# internal parsers with @testable import), optimised, instrumented.
# shellcheck disable=SC2054 # "fuzzer,address" is one swiftc argument (a second -sanitize would replace the first)
swiftc_flags=(
  -swift-version 6 -O -g -enable-testing -parse-as-library -package-name KioskCards
  -sanitize=fuzzer,address
  -I "$modules" -I Sources/CLinux -I Sources/CEvdev -I Sources/CDrm -I Sources/CTurboJPEG
)
for pc in libevdev libdrm libturbojpeg; do
  for f in $(pkg-config --cflags-only-I "$pc"); do swiftc_flags+=(-Xcc "$f"); done
done

sources() { find "$@" -name '*.swift' | sort; }

# build_module NAME: Sources/NAME as one module (object + .swiftmodule), when a source is newer.
build_module() {
  local name=$1 obj=$modules/$1.o
  if [ -f "$obj" ] && [ -z "$(find "Sources/$name" -name '*.swift' -newer "$obj" -print -quit)" ]; then
    return
  fi
  echo "fuzz: building $name"
  # shellcheck disable=SC2046 # one word per source path (no spaces in Sources/)
  swiftc "${swiftc_flags[@]}" -module-name "$name" -wmo -emit-module -emit-module-path "$modules/$name.swiftmodule" \
    -c -o "$obj" $(sources "Sources/$name")
}

# scripts/fuzz.sh all's waves: one module (the modules it needs are built), or one harness.
if [ -n "${KIOSK_FUZZ_MODULE:-}" ]; then
  build_module "$KIOSK_FUZZ_MODULE"
  exit 0
fi
target=${KIOSK_FUZZ_TARGET:-$target}

# What each harness is made of: the modules it links and its own sources.
case $target in
  json)
    deps=(CardModel KioskSystem)
    harness=(Fuzz/JSONHarness.swift)
    ;;
  deck)
    deps=(CardModel KioskSystem KioskDeckFiles)
    harness=(Fuzz/DeckHarness.swift)
    ;;
  config)
    # The config parser lives in the executable; its pure files are compiled in.
    deps=(CardModel KioskSystem KioskInput KioskDisplay KioskDeckFiles)
    harness=(Fuzz/ConfigHarness.swift Sources/KioskCards/App/Config.swift Sources/KioskCards/App/Config+Parsing.swift
      Sources/KioskCards/App/PanelPreset.swift)
    ;;
  evemu)
    deps=(CardModel KioskSystem KioskInput)
    harness=(Fuzz/EvemuHarness.swift)
    ;;
  decoder)
    deps=(CardModel KioskSystem KioskInput)
    harness=(Fuzz/DecoderHarness.swift)
    ;;
  *) usage ;;
esac

for m in "${deps[@]}"; do build_module "$m"; done
bin=$out/bin/fuzz-$target
objects=()
for m in "${deps[@]}"; do objects+=("$modules/$m.o"); done
if [ ! -x "$bin" ] || [ -n "$(find "${harness[@]}" "${objects[@]}" -newer "$bin" -print -quit)" ]; then
  echo "fuzz: linking $bin"
  # lld: gold warns about every ASan helper symbol it cannot export.
  swiftc "${swiftc_flags[@]}" -use-ld=lld -module-name "Fuzz_$target" Fuzz/FuzzInput.swift "${harness[@]}" "${objects[@]}" -o "$bin"
fi
[ "${KIOSK_FUZZ_BUILD_ONLY:-}" = 1 ] && exit 0

# Inputs up to 64 KiB (recordings 16 KiB: a few hundred events after the description keep
# runs fast); -rss_limit_mb well above ASan's own overhead catches runaway allocation.
max_len=65536
case $target in evemu | decoder) max_len=16384 ;; esac

# Seeds, copied (never edited in place); a longer seed is cut at a line end within max_len.
corpus=$out/corpus/$target
crashes=$out/crashes/$target
mkdir -p "$corpus" "$crashes"
case $target in
  json | deck) seeds=(examples/*.json examples/*/*.json Tests/Fixtures/decks/*.json) ;;
  config) seeds=(deploy/kiosk.conf.example) ;;
  evemu | decoder) seeds=(Tests/Fixtures/touch/*.evemu Tests/Fixtures/*.evemu) ;;
esac
for s in "${seeds[@]}"; do
  [ -f "$s" ] || continue
  seed=$corpus/seed-$(basename "$s")
  [ -e "$seed" ] && continue
  if [ "$(stat -c %s "$s")" -le $max_len ]; then
    cp "$s" "$seed"
  else
    head -c $max_len "$s" | sed '$d' >"$seed"
  fi
done

# Files among the extra arguments: run just those (a crash to reproduce), not the fuzzer.
for a in "$@"; do
  if [ -f "$a" ]; then
    SWIFT_BACKTRACE=enable=no exec "$bin" "$@"
  fi
done

echo "fuzz: $target for ${seconds}s (corpus $corpus, crashes $crashes)"
log=$out/$target.log
set +e
# Swift's backtracer reads memory ASan has poisoned and can hang; libFuzzer reports crashes itself.
SWIFT_BACKTRACE=enable=no "$bin" "$corpus" -max_total_time="$seconds" -max_len=$max_len -rss_limit_mb=2048 -timeout=10 \
  -artifact_prefix="$crashes/" -print_final_stats=1 "$@" >"$log" 2>&1
status=$?
set -e
grep -E '^#[0-9]+.*DONE|^stat::number_of_executed_units|^stat::peak_rss_mb' "$log" || true
if [ $status -ne 0 ]; then
  grep -E 'ERROR: |Fatal error|precondition|SUMMARY|Test unit written' "$log" | head -20 >&2 || true
  echo "fuzz: $target crashed (log $log)" >&2
  exit 1
fi
