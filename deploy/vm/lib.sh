# shellcheck shell=bash
# Shared settings for the virtual-kiosk scripts (sourced, never run).
#
# Cache layout (outside the repo, survives clean clones on the same machine):
#   $VM_CACHE/debs/                  downloaded kernel packages
#   $VM_CACHE/kernel/<pkg-version>/  dpkg -x of one kernel package
#   $VM_CACHE/kernel/current         symlink to the one in use
#   $VM_CACHE/initramfs/base-<hash>.cpio   the app-independent initramfs layer

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$VM_DIR/../.." && pwd)
# The guest's architecture: amd64 (qemu-system-x86_64, bookworm's kernel and the host's own
# binaries) or arm64 (qemu-system-aarch64 -M virt -cpu cortex-a72, trixie's linux-image-arm64,
# userland from the arm64 sysroot of scripts/cross-arm64.sh, the aarch64 build of the app).
VM_ARCH=${KIOSK_VM_ARCH:-amd64}
case $VM_ARCH in
  amd64)
    VM_CACHE=${KIOSK_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kioskcards-vm}
    VM_SYSROOT="" VM_BUILD="$REPO_ROOT/.build/vm" VM_APP="$REPO_ROOT/.build/release/KioskCards"
    ;;
  arm64)
    VM_CACHE=${KIOSK_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kioskcards-vm}-arm64
    VM_SYSROOT=${KIOSK_ARM64_CACHE:-$HOME/.cache/kioskcards-arm64}/arm64/sysroot
    VM_BUILD="$REPO_ROOT/.build/vm-arm64" VM_APP="$REPO_ROOT/.build-arm64/release/KioskCards"
    ;;
  *) echo "deploy/vm: KIOSK_VM_ARCH must be amd64 or arm64, not '$VM_ARCH'" >&2 && exit 2 ;;
esac
export VM_DIR REPO_ROOT VM_CACHE VM_ARCH VM_SYSROOT VM_BUILD VM_APP

# Runs a binary of the guest's architecture on the host (arm64: qemu-user through binfmt_misc,
# libraries from the sysroot), e.g. the app for `render`, busybox for its applet list.
vm_run_target() {
  if [ -n "$VM_SYSROOT" ]; then QEMU_LD_PREFIX=$VM_SYSROOT "$@"; else "$@"; fi
}

# apt-get / apt-cache for the guest's packages: the host's own for amd64; for arm64 those of
# the trixie build chroot (scripts/cross-arm64.sh makes it), which knows arm64 packages. The
# current directory is bound into the chroot at the same path (apt-get download writes there).
vm_apt() {
  if [ "$VM_ARCH" = amd64 ]; then
    "$@"
  else
    # shellcheck source=../../scripts/lib-trixie.sh
    . "$REPO_ROOT/scripts/lib-trixie.sh"
    [ -f "$BUILD_CHROOT/.kiosk-packages" ] || vm_die "no trixie build chroot — run scripts/cross-arm64.sh --setup-only"
    # shellcheck disable=SC2016  # expanded inside the chroot
    in_chroot "$BUILD_CHROOT" --bind "$(pwd -P)" -- bash -c 'cd "$1" && shift && "$@"' sh "$(pwd -P)" "$@"
  fi
}

vm_log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
vm_die() {
  vm_log "$*"
  exit 1
}

# Holds an exclusive lock on the cache until the calling script exits, so that two runs at
# once (two worktrees, two CI jobs) do not unpack or prune under each other.
vm_lock_cache() {
  mkdir -p "$VM_CACHE"
  exec 9>"$VM_CACHE/.lock"
  flock 9
}

# Milliseconds since the epoch (for timings the scripts print).
vm_now_ms() { date +%s%3N; }

# Seconds with one decimal between two vm_now_ms values.
vm_elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }

# The kernel tree fetch-kernel.sh set up: prints its directory or fails.
vm_kernel_dir() {
  local dir="$VM_CACHE/kernel/current"
  [ -d "$dir/boot" ] || vm_die "no kernel in $VM_CACHE/kernel — run deploy/vm/fetch-kernel.sh"
  (cd "$dir" && pwd -P)
}

# The image to boot: the uncompressed vmlinux (PVH entry) when fetch-kernel.sh made one,
# else the bzImage.
vm_kernel_image() {
  local dir release
  dir=$(vm_kernel_dir)
  release=$(vm_kernel_release "$dir")
  if [ -f "$dir/boot/vmlinux-$release" ]; then
    echo "$dir/boot/vmlinux-$release"
  else
    echo "$dir/boot/vmlinuz-$release"
  fi
}

# The kernel release (uname -r) inside a kernel tree.
vm_kernel_release() {
  local f
  f=$(find "$1/boot" -maxdepth 1 -name 'vmlinuz-*' -print -quit)
  [ -n "$f" ] || vm_die "no vmlinuz in $1/boot"
  printf '%s\n' "${f##*/vmlinuz-}"
}

# The test data mounted at /testdata: the checkout's own fixtures, whose touch/ holds the real
# touchscreen recordings (with their PROVENANCE.md).
vm_testdata_dir() {
  (cd "$REPO_ROOT/Tests/Fixtures" && pwd)
}
