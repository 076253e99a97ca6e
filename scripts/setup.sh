#!/usr/bin/env bash
# Installs the Debian packages KioskCards needs to build, test and run (idempotent).
# Usage: scripts/setup.sh            (build + test + virtual kiosk packages)
set -euo pipefail

packages=(
  pkg-config
  libevdev-dev libdrm-dev libcairo2-dev libpango1.0-dev libsqlite3-dev libturbojpeg0-dev libcrypt-dev
  fonts-dejavu-core fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji fontconfig
  qemu-system-x86 busybox-static cpio kmod xz-utils zstd socat python3
  evemu-tools shellcheck systemd
  tzdata # schedules: the system time zone (ScheduleLocalTimeTests reads Europe/Berlin)
  gcc-12 make binutils libelf1 # deploy/vm/build-vkms.sh: vkms.ko out of tree (kbuild tools need libelf)
  # scripts/test-arm64.sh: the trixie chroots (debootstrap), aarch64 programs on this machine
  # (qemu-user through binfmt_misc), the aarch64 virtual kiosk. dpkg-dev, lintian and Debian's
  # Swift run inside the trixie chroot, which the scripts install themselves.
  debootstrap qemu-user-static binfmt-support qemu-system-arm
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  echo "setup: the Swift toolchain (6.x) is not on PATH. Install it from the Swift project's"
  echo "       Linux toolchain for Debian 12 and add its usr/bin to PATH, then run this again." >&2
  exit 1
fi
