#!/usr/bin/env bash
# Installs each kioskcards .deb with `apt install ./…deb` into a clean Debian trixie chroot of
# its architecture (arm64 under qemu-user-static) and checks it there: `KioskCards --version`,
# `check-deck` on every shipped example, `systemd-analyze verify` of the installed unit, the
# user kiosk in video and input, the conffiles, the service not enabled, then a purge.
#
# Usage: scripts/test-deb.sh [DEB...]   (default: .build-deb/kioskcards_*.deb)
# The clean chroots are cached minbase trees ($KIOSK_ARM64_CACHE/clean-ARCH) used through an
# overlay, so every run starts from the same clean tree; downloaded .debs are kept in
# $KIOSK_ARM64_CACHE/apt-ARCH.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib-trixie.sh
source scripts/lib-trixie.sh

debs=("$@")
[ ${#debs[@]} -gt 0 ] || debs=(.build-deb/kioskcards_*.deb)
failed=0
for deb in "${debs[@]}"; do
  [ -f "$deb" ] || { echo "test-deb: $deb is missing (scripts/package.sh)" >&2; exit 1; }
  deb=$(realpath "$deb")
  arch=$(dpkg-deb -f "$deb" Architecture)
  base=$KIOSK_ARM64_CACHE/clean-$arch
  start=$SECONDS
  [ "$arch" = arm64 ] && ensure_binfmt
  make_base "$base" "$arch"
  scratch=$(mktemp -d /var/tmp/kioskcards-deb.XXXXXX)
  mkdir -p "$scratch/upper" "$scratch/work" "$scratch/root" "$KIOSK_ARM64_CACHE/apt-$arch/partial"
  log=$scratch/test.log
  # shellcheck disable=SC2016  # expanded in the subshell below
  if unshare --mount --propagation private bash -c '
      set -euo pipefail
      source scripts/lib-trixie.sh
      base=$1 scratch=$2 deb=$3 cache=$4
      mount -t overlay overlay -o "lowerdir=$base,upperdir=$scratch/upper,workdir=$scratch/work" "$scratch/root"
      in_chroot "$scratch/root" --bind "$(dirname "$deb")=/debs" --bind "$cache=/var/cache/apt/archives" -- \
        bash -c "$(cat scripts/test-deb-guest.sh)" guest "/debs/$(basename "$deb")"
    ' sh "$base" "$scratch" "$deb" "$KIOSK_ARM64_CACHE/apt-$arch" >"$log" 2>&1; then
    grep '^test-deb' "$log"
    echo "test-deb: PASS $(basename "$deb") in a clean trixie $arch chroot ($((SECONDS - start)) s)"
  else
    tail -40 "$log"
    echo "test-deb: FAIL $(basename "$deb") (log $log)"
    failed=1
    continue
  fi
  rm -rf "$scratch"
done
exit $failed
