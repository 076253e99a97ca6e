#!/usr/bin/env bash
# Installs the Debian packages KioskCards needs to build, test and run (idempotent).
# Usage: scripts/setup.sh            (build + test + virtual kiosk packages)
set -euo pipefail

packages=(
  pkg-config
  libevdev-dev libdrm-dev libcairo2-dev libpango1.0-dev libsqlite3-dev libturbojpeg0-dev libcrypt-dev
  libpq-dev postgresql # the fleet (docs/FLEET.md): libpq to build, a real server for FleetTests
  openssl # scripts/fleet-docs-test.sh: the CA of deploy/fleet-certs.sh (psql comes with postgresql)
  libespeak-ng-dev espeak-ng-data # Sources/CEspeakNG: speech
  libasound2-dev # Sources/CALSA: speech played through ALSA
  libqrencode-dev # Sources/CQRencode: QR codes drawn by KioskRender
  zbar-tools      # QRCodeTests, LinkCodeTests: zbarimg reads the drawn codes back
  fonts-dejavu-core fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji fontconfig
  qemu-system-x86 busybox-static cpio kmod xz-utils zstd socat python3
  python3-fonttools # deploy/vm/build-initramfs.sh: the Noto Sans CJK subset for the virtual kiosk
  evemu-tools shellcheck systemd
  valgrind # bench --instructions: instructions per frame (callgrind)
  time # FleetHostileTests: GNU time measures fleet sync's peak RSS
  libjs-chart.js chromium # report: Chart.js inlined into the page; the page checked in headless Chromium
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
  # An install killed half-way (Ctrl-C during a first run) leaves dpkg "interrupted": finish it.
  [ -z "$(dpkg --audit 2>/dev/null)" ] || $sudo dpkg --configure -a
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# `sudo bash scripts/setup.sh` resets PATH (secure_path), so a toolchain the invoking user has
# on PATH is not found as root: look where toolchains are installed and on the user's own PATH.
find_swift() {
  command -v swift >/dev/null 2>&1 && return 0
  local home="" d
  if [ -n "${SUDO_USER:-}" ]; then home=$(getent passwd "$SUDO_USER" | cut -d: -f6); fi
  for d in /opt/swift/usr/bin /usr/share/swift/usr/bin /usr/local/swift/usr/bin \
           ${home:+"$home/.local/share/swiftly/bin"} ${home:+"$home/.swiftly/bin"} /usr/libexec/swift/bin /usr/libexec/swift/*/bin; do
    if [ -x "$d/swift" ]; then PATH="$d:$PATH"; export PATH; return 0; fi
  done
  if [ -n "${SUDO_USER:-}" ] && command -v runuser >/dev/null; then
    d=$(runuser -u "$SUDO_USER" -- bash -lc 'command -v swift' 2>/dev/null || true)
    if [ -n "$d" ] && [ -x "$d" ]; then PATH="$(dirname "$d"):$PATH"; export PATH; return 0; fi
  fi
  return 1
}
if ! find_swift; then
  echo "setup: the Swift toolchain (6.x) is not on PATH (nor in /opt/swift, /usr/share/swift or the" >&2
  echo "       invoking user's PATH). Install Debian's swiftlang or the Swift project's toolchain and" >&2
  echo "       add its usr/bin to PATH, then run this again." >&2
  exit 1
fi
echo "setup: using $(command -v swift)"
