#!/usr/bin/env bash
# Builds the release binary the way it ships (the .debs, scripts/run.sh, the VM scenarios):
# the Swift runtime linked statically, and linked so that the code a kiosk runs lies together
# and the loader reads and writes little of the executable at start (docs/PERFORMANCE.md, "The
# executable's pages"). Every build of the shipped binary goes through here.
#
# Usage: scripts/release-build.sh [more `swift build` arguments: --scratch-path DIR, -Xlinker ...]
#   -function-sections       every function in a section of its own, so that the linker can
#                            place it (and drop it when unused)
#   --symbol-ordering-file   deploy/kioskcards.order first: the functions the bench's start-up
#                            probe runs, recorded by scripts/exe-order.py (a stale list only
#                            costs locality: missing names are skipped, new functions go after)
#   -z pack-relative-relocs  relative relocations as a bitmap (DT_RELR, glibc 2.36+) instead of
#                            24 bytes each, which the loader reads whole at every start
#   --no-export-dynamic      the executable's symbols stay out of its dynamic symbol table:
#                            nothing looks them up, and the loader searches that table first
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
    --scratch-path) scratch=${args[i + 1]:-$scratch} ;;
    --scratch-path=*) scratch=${args[i]#--scratch-path=} ;;
  esac
done
# SwiftPM does not relink when only linker flags change: an old binary would stay.
rm -f "$scratch"/*/release/KioskCards "$scratch"/release/KioskCards

exec swift build -c release --static-swift-stdlib --product KioskCards \
  -Xswiftc -Xfrontend -Xswiftc -function-sections \
  -Xswiftc -use-ld=lld \
  -Xlinker --symbol-ordering-file="$PWD/deploy/kioskcards.order" -Xlinker --no-warn-symbol-ordering \
  -Xlinker -z -Xlinker pack-relative-relocs \
  -Xlinker --no-export-dynamic \
  "$@"
