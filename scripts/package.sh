#!/usr/bin/env bash
# Builds kioskcards_<version>_arm64.deb and kioskcards_<version>_amd64.deb for Debian 13
# (trixie) / Raspberry Pi OS trixie, in the trixie build chroot of scripts/cross-arm64.sh,
# and runs lintian on them.
#
# Usage: scripts/package.sh [--arch arm64|amd64] [--out DIR] [--no-build]
#   --arch A     only this architecture (default: both)
#   --out DIR    where the .debs go (default .build-deb)
#   --no-build   use the release binaries as built (.build-arm64/release, .build-603/release)
#
# Contents: /usr/bin/KioskCards (stripped), the systemd unit (deploy/kioskcards.service with
# ExecStart=/usr/bin/KioskCards), sysusers.d (user kiosk in video and input), a udev rule,
# /etc/kioskcards/{kiosk.conf,deck.json} as conffiles, examples and schema under
# /usr/share/kioskcards, a man page and bash completion generated from the binary's --help
# (scripts/gen-docs.py). Depends: dpkg-shlibdeps on the binary, against the symbols files of
# the packages the arm64 sysroot was made of (arm64) or of the chroot (amd64).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib-trixie.sh
source scripts/lib-trixie.sh

archs="arm64 amd64" out=.build-deb build=1
while [ $# -gt 0 ]; do
  case $1 in
    --arch) archs=$2; shift ;;
    --out) out=$2; shift ;;
    --no-build) build=0 ;;
    -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "package: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

if [ "$build" = 1 ]; then
  for arch in $archs; do scripts/cross-arm64.sh --no-tests --arch "$arch"; done
fi
ensure_build_chroot
ensure_binfmt
repo=$(pwd -P)
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
binds=(--bind "$repo" --bind "$ARM64_DIR=$ARM64_MOUNT")
[[ $out == "$repo"/* ]] || binds+=(--bind "$out")

for arch in $archs; do
  case $arch in
    arm64) binary=.build-arm64/release/KioskCards ;;
    amd64) binary=.build-603/release/KioskCards ;;
    *) echo "package: unknown arch $arch" >&2; exit 2 ;;
  esac
  [ -x "$binary" ] || { echo "package: $binary is missing (scripts/cross-arm64.sh --no-tests --arch $arch)" >&2; exit 1; }
  in_chroot "$BUILD_CHROOT" "${binds[@]}" -- bash "$repo/scripts/deb-build.sh" \
    --repo "$repo" --arch "$arch" --binary "$binary" --out "$out" --sysroot "$ARM64_MOUNT"
done
ls -l "$out"/*.deb
