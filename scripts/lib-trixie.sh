# shellcheck shell=bash disable=SC2034  # the settings are read by the scripts that source this
# Shared by scripts/cross-arm64.sh, scripts/package.sh and scripts/test-arm64.sh: where the
# trixie chroots, the arm64 sysroot and the Swift SDK bundle live, and how to run a command in
# a chroot. Everything comes from Debian's archive; nothing is cached inside the work tree.

KIOSK_ARM64_CACHE=${KIOSK_ARM64_CACHE:-$HOME/.cache/kioskcards-arm64}
KIOSK_DEBIAN_MIRROR=${KIOSK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
KIOSK_SUITE=trixie
# The build chroot (amd64, Debian's swiftlang 6.0.3) and what it holds. Bump the stamp's
# version when the lists change: the next run installs what is missing.
BUILD_CHROOT=$KIOSK_ARM64_CACHE/chroot-amd64
BUILD_PACKAGES=(
  swiftlang libstdc++-14-dev pkg-config
  libevdev-dev libdrm-dev libcairo2-dev libpango1.0-dev libsqlite3-dev libturbojpeg0-dev libqrencode-dev libpq-dev libespeak-ng-dev libasound2-dev
  fontconfig fonts-dejavu-core fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji
  dpkg-dev lintian binutils-aarch64-linux-gnu file man-db systemd
  libjs-chart.js # the report tests inline Chart.js
  zbar-tools # QRCodeTests read the drawn codes back with zbarimg
  # The fleet suite's server: the (emulated) tests start it from these amd64 binaries and the
  # aarch64 KioskCards processes they spawn reach it over TCP on 127.0.0.1.
  postgresql
  make gcc-14-aarch64-linux-gnu # deploy/vm/build-vkms.sh for the arm64 kernel
)
# The arm64 sysroot: -dev packages the package links against, the runtime the tests meet on a
# Pi, and the fonts the render tests use.
SYSROOT_PACKAGES=(
  libc6-dev libgcc-14-dev libstdc++-14-dev linux-libc-dev
  libevdev-dev libdrm-dev libcairo2-dev libpango1.0-dev libsqlite3-dev libturbojpeg0-dev libqrencode-dev libpq-dev libespeak-ng-dev espeak-ng-data libasound2-dev
  fontconfig-config fonts-dejavu-core fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji
  libjs-chart.js
)
# Added to the same sysroot for the aarch64 virtual kiosk (deploy/vm with KIOSK_VM_ARCH=arm64):
# the guest's busybox, evemu tools and fontconfig tools.
VM_SYSROOT_PACKAGES=(busybox-static evemu-tools fontconfig)
# Inside the build chroot the arm64 tree is at this path (a bind mount of $ARM64_DIR).
ARM64_DIR=$KIOSK_ARM64_CACHE/arm64
ARM64_MOUNT=/opt/kiosk-arm64
SDK_NAME=kioskcards-trixie-arm64

trixie_log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }

# in_chroot DIR [--bind PATH]... -- CMD...: runs CMD (as bash -c when one word with spaces)
# in DIR with /proc, /dev, /sys and the given host paths bound at the same place, in a private
# mount namespace, so nothing stays mounted when it ends (even on a crash).
in_chroot() {
  local dir=$1
  shift
  local binds=()
  while [ "$1" != "--" ]; do
    binds+=("$2")
    shift 2
  done
  shift
  # shellcheck disable=SC2016  # expanded by the sh below
  local script='set -e; d=$1; shift; n=$1; shift
    mount -t proc proc "$d/proc"; mount --rbind /dev "$d/dev"; mount --rbind /sys "$d/sys"
    mkdir -p "$d/run" && mount -t tmpfs tmpfs "$d/run"
    i=0; while [ $i -lt "$n" ]; do
      src=$1; dst=$2; shift 2; mkdir -p "$d$dst"; mount --bind "$src" "$d$dst"; i=$((i+1)); done
    exec chroot "$d" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
      LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"'
  local args=() b
  for b in "${binds[@]}"; do
    if [[ $b == *=* ]]; then args+=("${b%%=*}" "${b#*=}"); else args+=("$b" "$b"); fi
  done
  cp -L /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
  unshare --mount --propagation private sh -c "$script" sh "$dir" "$((${#args[@]} / 2))" "${args[@]}" "$@"
}

# make_base DIR ARCH [debootstrap args]: a minimal trixie tree (cached; DIR/.kiosk-base marks
# it complete). arm64 runs its second stage under qemu-user-static through binfmt_misc.
make_base() {
  local dir=$1 arch=$2
  shift 2
  [ -f "$dir/.kiosk-base" ] && return 0
  rm -rf "$dir.tmp"
  mkdir -p "$(dirname "$dir")"
  trixie_log "debootstrap $KIOSK_SUITE $arch → $dir"
  if [ "$arch" = amd64 ]; then
    debootstrap --variant=minbase --arch=amd64 "$@" "$KIOSK_SUITE" "$dir.tmp" "$KIOSK_DEBIAN_MIRROR" >"$dir.log" 2>&1 ||
      { tail -20 "$dir.log" >&2; return 1; }
  else
    ensure_binfmt
    debootstrap --foreign --variant=minbase --arch="$arch" "$@" "$KIOSK_SUITE" "$dir.tmp" "$KIOSK_DEBIAN_MIRROR" >"$dir.log" 2>&1 ||
      { tail -20 "$dir.log" >&2; return 1; }
    chroot "$dir.tmp" /debootstrap/debootstrap --second-stage >>"$dir.log" 2>&1 ||
      { tail -20 "$dir.log" >&2; return 1; }
  fi
  rm -rf "$dir"
  mv "$dir.tmp" "$dir"
  touch "$dir/.kiosk-base"
}

# qemu-user through binfmt_misc (Debian's qemu-user-static registers with the F flag, so
# aarch64 programs also run inside chroots that have no qemu of their own).
ensure_binfmt() {
  [ -d /proc/sys/fs/binfmt_misc ] || return 1
  [ -f /proc/sys/fs/binfmt_misc/status ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  if [ ! -f /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
    update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
  fi
  [ -f /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || { trixie_log "qemu-aarch64 is not registered with binfmt_misc"; return 1; }
}

# The build chroot, with BUILD_PACKAGES installed (a stamp holds the list last installed).
# The stamp is written only after a complete install, and the stamp is removed before one
# starts; an install that was killed (a Ctrl-C, scripts/test.sh stopping its background
# builds) leaves dpkg "interrupted", which the next run repairs (dpkg --configure -a,
# apt-get -f install) before installing again.
ensure_build_chroot() {
  make_base "$BUILD_CHROOT" amd64
  local want
  want=$(printf '%s\n' "${BUILD_PACKAGES[@]}" | sort | tr '\n' ' ')
  if [ "$(cat "$BUILD_CHROOT/.kiosk-packages" 2>/dev/null)" != "$want" ]; then
    rm -f "$BUILD_CHROOT/.kiosk-packages"
    trixie_log "installing in the build chroot: ${BUILD_PACKAGES[*]}"
    # policy-rc.d: no package starts a service inside the chroot (postgresql's cluster).
    in_chroot "$BUILD_CHROOT" -- bash -c 'dpkg --add-architecture arm64 &&
      printf "#!/bin/sh\nexit 101\n" >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d &&
      { dpkg --configure -a && apt-get install -y -qq -f; } >/tmp/repair.log 2>&1 &&
      apt-get update -qq &&
      apt-get install -y -qq --no-install-recommends "$@" >/tmp/install.log 2>&1 ||
      { tail -30 /tmp/repair.log /tmp/install.log 2>/dev/null; exit 1; }' \
      sh "${BUILD_PACKAGES[@]}"
    printf '%s' "$want" >"$BUILD_CHROOT/.kiosk-packages.tmp"
    mv "$BUILD_CHROOT/.kiosk-packages.tmp" "$BUILD_CHROOT/.kiosk-packages"
  fi
}

# build_chroot_run CMD...: CMD in the build chroot, in the work tree (bound at its own path;
# the tests' touch recordings are in it) and the arm64 tree at $ARM64_MOUNT, Debian's Swift
# on PATH.
build_chroot_run() {
  local repo
  repo=$(pwd -P)
  local b=(--bind "$repo" --bind "$ARM64_DIR=$ARM64_MOUNT")
  # shellcheck disable=SC2016  # expanded inside the chroot
  in_chroot "$BUILD_CHROOT" "${b[@]}" -- bash -c 'cd "$1" && shift && export PATH=/usr/libexec/swift/bin:$PATH && exec "$@"' \
    sh "$repo" "$@"
}
