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
#   libstdc++.a, -static-libgcc  the C++ library the Swift runtime uses, and libgcc's unwinder,
#                            linked in like the runtime itself: only what it calls, instead of
#                            two more shared libraries to map, relocate and initialise at every
#                            start (docs/PERFORMANCE.md, "The executable's pages"). The target's
#                            libstdc++.a (its sysroot's, PKG_CONFIG_SYSROOT_DIR, when cross-
#                            building) is found ahead of libstdc++.so through a folder of its own
#                            on the library path; without one the build links libstdc++.so
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

# swiftc's static-stdlib arguments say -lstdc++; a folder holding only libstdc++.a, searched
# before the compiler's own, makes that the archive (the newest GCC's, as clang picks).
static_cxx=()
cxx_archive=$(printf '%s\n' "${PKG_CONFIG_SYSROOT_DIR:-}"/usr/lib/gcc/*-linux-gnu/*/libstdc++.a | sort -V | tail -n 1)
if [ -f "$cxx_archive" ]; then
  cxx_dir=$(realpath -m "$scratch/static-libstdc++")
  mkdir -p "$cxx_dir"
  ln -sfn "$cxx_archive" "$cxx_dir/libstdc++.a"
  static_cxx=(-Xlinker -L -Xlinker "$cxx_dir" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc)
else
  echo "release-build: no libstdc++.a (Debian's libstdc++-dev); linking libstdc++.so" >&2
fi

# cairo and pango are called through CGraphics, which loads them with dlopen (docs/PERFORMANCE.md,
# "Libraries loaded when used"), so the executable must not link them. SwiftPM links what
# pkg-config's Libs say: the build finds first on PKG_CONFIG_PATH, ahead of pangocairo's own, a
# pangocairo.pc of this folder with the same Cflags (as pkg-config prints them: with the sysroot when cross-building)
# and no Libs. The check after the build names any of the libraries still linked.
pc_dir=$(realpath -m "$scratch/pkgconfig-headers-only")
mkdir -p "$pc_dir"
printf 'Name: pangocairo\nDescription: pango and cairo headers; CGraphics loads the libraries\nVersion: %s\nCflags: %s\nLibs:\n' \
  "$(pkg-config --modversion pangocairo)" "$(pkg-config --cflags pangocairo)" >"$pc_dir/pangocairo.pc"
libdir=$(pkg-config --variable=libdir pangocairo)
graphics_libs=()
for flag in $(pkg-config --libs-only-l pangocairo); do
  lib="${PKG_CONFIG_SYSROOT_DIR:-}$libdir/lib${flag#-l}.so"
  [ -e "$lib" ] || lib=$libdir/lib${flag#-l}.so
  graphics_libs+=("$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')")
done

export PKG_CONFIG_PATH="$pc_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
swift build -c release --static-swift-stdlib --product KioskCards \
  "${static_cxx[@]}" \
  -Xswiftc -Xfrontend -Xswiftc -function-sections \
  -Xswiftc -use-ld=lld \
  -Xlinker --symbol-ordering-file="$PWD/deploy/kioskcards.order" -Xlinker --no-warn-symbol-ordering \
  -Xlinker -z -Xlinker pack-relative-relocs \
  -Xlinker --no-export-dynamic \
  "$@"

binary=$(swift build -c release --static-swift-stdlib --product KioskCards "$@" --show-bin-path)/KioskCards
needed=$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for soname in "${graphics_libs[@]}"; do
  if grep -qxF "$soname" <<<"$needed"; then
    echo "release-build: $binary links $soname: a function of it is called without CGraphics (add it to Sources/CGraphics/CGraphics.c)" >&2
    exit 1
  fi
done
