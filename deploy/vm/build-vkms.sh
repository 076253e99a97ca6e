#!/usr/bin/env bash
# Builds vkms.ko (the virtual KMS driver: a DRM device with a 60 Hz hrtimer vblank) for the
# virtual kiosk's kernel. Debian's kernel does not build vkms, so it is compiled out of tree
# from linux-source-<M.m> (only drivers/gpu/drm/vkms) against linux-headers-<release>, at
# exactly the version fetch-kernel.sh unpacked, so that vermagic and symbol CRCs match.
#
# Usage: deploy/vm/build-vkms.sh [--path]
#   --path   print only the path of the cached vkms.ko (exit 1 when there is none)
#   env KIOSK_VM_CACHE=DIR   cache dir (default ~/.cache/kioskcards-vm)
# Needs fetch-kernel.sh to have run (it reads the kernel in $VM_CACHE/kernel/current).
#
# Cache ($VM_CACHE/vkms, never in the repo; pruned to the current kernel):
#   debs/                    linux-headers-*, linux-kbuild-* packages (~14 MB; the 139 MB
#                            linux-source package is deleted once vkms's sources are out)
#   src-<version>/           drivers/gpu/drm/vkms of linux-source-<M.m> <version>
#   <release>-<version>-r<N>/vkms.ko   the result (debug info stripped, ~60 KB)
# A cached vkms.ko costs nothing (no network, no apt). Prints the timings of each step and
# last "vkms <path> (kernel <release>, <version>) in N s".
#
# Exit status: 0 built or cached; 2 unavailable for a reason outside the project (the
# packages cannot be downloaded: offline, mirror without that version) — the reason is the
# last line on stderr; 1 anything else (missing build tools, a compile error, a vermagic
# mismatch): a bug to fix.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# Bump when the build recipe changes what vkms.ko contains (the cache key includes it).
recipe=1

path_only=0
while (($#)); do
  case $1 in
    --path) path_only=1 && shift ;;
    -h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' && exit 0 ;;
    *) vm_die "unknown option '$1' (see --help)" ;;
  esac
done

# Exit 2: the module cannot be had for a reason outside the project.
unavailable() {
  vm_log "vkms unavailable: $*"
  exit 2
}

t_all=$(vm_now_ms)
kdir=$(vm_kernel_dir)
release=$(vm_kernel_release "$kdir")
# fetch-kernel.sh names the tree <package>-<version>, the package being linux-image-<release>.
version=${kdir##*/linux-image-"$release"-}
[[ $version != */* && $version =~ ^[0-9] ]] ||
  vm_die "cannot tell the kernel package version from $kdir (expected linux-image-$release-<version>)"
moddir="$kdir/lib/modules/$release"
cache="$VM_CACHE/vkms"
out_dir="$cache/$release-$version-r$recipe"
ko="$out_dir/vkms.ko"

if ((path_only)); then
  [ -f "$ko" ] || exit 1
  echo "$ko"
  exit 0
fi

# Own lock (not the shared cache lock): a cold build takes half a minute, and other scripts
# (fetch-kernel.sh, build-initramfs.sh) should not wait for it.
mkdir -p "$cache"
exec 8>"$cache/.lock"
flock 8

report() {
  echo "vkms $ko (kernel $release, $version) in $(vm_elapsed "$t_all" "$(vm_now_ms)") s"
}
if [ -f "$ko" ]; then
  report
  exit 0
fi

if [ "$VM_ARCH" != amd64 ]; then
  # shellcheck source=../../scripts/lib-trixie.sh
  . "$REPO_ROOT/scripts/lib-trixie.sh"
  ensure_build_chroot >&2
  ensure_binfmt
fi
if [ "$VM_ARCH" = amd64 ]; then
  for tool in make gcc-12 ld strip modinfo xz; do
    command -v "$tool" >/dev/null || vm_die "$tool is missing — run scripts/setup.sh"
  done
fi
# arm64: apt, make and the cross compiler (gcc-14-aarch64-linux-gnu, the kernel's own gcc
# version) run in the trixie build chroot; the kbuild tools of linux-kbuild-*:arm64 are
# aarch64 programs and run there under qemu-user (binfmt_misc). No BTF for the module (it
# needs pahole, and the debug info is stripped anyway).
vm_build() {
  if [ "$VM_ARCH" = amd64 ]; then
    "$@"
  else
    # shellcheck disable=SC2016  # expanded inside the chroot
    in_chroot "$BUILD_CHROOT" --bind "$(pwd -P)" --bind "$ARM64_DIR=$ARM64_MOUNT" -- \
      bash -c 'cd "$1" && shift && exec env QEMU_LD_PREFIX=/opt/kiosk-arm64/sysroot "$@"' sh "$(pwd -P)" \
      "$@" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CC=aarch64-linux-gnu-gcc-14 CONFIG_DEBUG_INFO_BTF_MODULES=
  fi
}

# The package names, all at exactly $version. Debian names them after the release
# (6.1.0-57-amd64) and the upstream series (6.1).
series=$(cut -d. -f1,2 <<<"$version")
flavour_headers=linux-headers-$release
common_headers=linux-headers-${release%-*}-common
kbuild=linux-kbuild-$series
# trixie names the kbuild package after the kernel release, not the series
[ "$VM_ARCH" = amd64 ] || kbuild=linux-kbuild-${release%-*}
source_pkg=linux-source-$series
mkdir -p "$cache/debs"

# Prints the cached .deb of package $1 at $version, or nothing.
cached_deb() {
  find "$cache/debs" -maxdepth 1 -name "$1_${version//:/%3a}_*.deb" -print -quit
}

# Downloads the given packages at $version into $cache/debs. When apt's index does not know
# that version yet (an old index), one apt-get update (as root) and a retry; a network error is
# not retried.
download() {
  local log="$cache/debs/.apt.log" specs=() p t0
  for p in "$@"; do
    # arm64 packages are foreign in the build chroot; the -common headers and the source are 'all'
    case $VM_ARCH:$p in arm64:*-common | arm64:linux-source-* | amd64:*) specs+=("$p=$version") ;; *) specs+=("$p:$VM_ARCH=$version") ;; esac
  done
  t0=$(vm_now_ms)
  vm_log "downloading $* ($version)"
  if ! (cd "$cache/debs" && vm_apt apt-get download -q "${specs[@]}") >"$log" 2>&1; then
    if [ "$(id -u)" -eq 0 ] && grep -qE "was not found|Unable to locate|Can't select" "$log"; then
      vm_log "apt does not know $version of them; running apt-get update and trying again"
      apt-get update -qq >/dev/null 2>&1 || true
      (cd "$cache/debs" && apt-get download -q "${specs[@]}") >"$log" 2>&1 && return 0
    fi
    # apt's first error says it best (e.g. "E: Failed to fetch … Could not connect to …").
    unavailable "apt-get download of $* ($version) failed after $(vm_elapsed "$t0" "$(vm_now_ms)") s:" \
      "$(grep -m1 '^E: ' "$log" || tail -n1 "$log")"
  fi
  vm_log "downloaded in $(vm_elapsed "$t0" "$(vm_now_ms)") s"
}

# One apt-get call for every package still missing.
src="$cache/src-$version"
need=()
for p in "$flavour_headers" "$common_headers" "$kbuild"; do
  [ -n "$(cached_deb "$p")" ] || need+=("$p")
done
[ -f "$src/Makefile" ] || [ -n "$(cached_deb "$source_pkg")" ] || need+=("$source_pkg")
((${#need[@]} == 0)) || download "${need[@]}"

# --- sources: drivers/gpu/drm/vkms only --------------------------------------------------
if [ ! -f "$src/Makefile" ]; then
  deb=$(cached_deb "$source_pkg")
  [ -n "$deb" ] || unavailable "apt-get download produced no $source_pkg package"
  t0=$(vm_now_ms)
  tmp=$(mktemp -d "$cache/.src.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # The package holds one tarball (usr/src/linux-source-M.m.tar.xz); xz has to read all of it
  # (~15 s) to reach the ten files wanted, which is why they are kept and the package is not.
  dpkg --fsys-tarfile "$deb" |
    tar -xO "./usr/src/$source_pkg.tar.xz" |
    xz -dc |
    tar -x -C "$tmp" --wildcards "$source_pkg/drivers/gpu/drm/vkms/*"
  [ -f "$tmp/$source_pkg/drivers/gpu/drm/vkms/Makefile" ] ||
    vm_die "$deb has no drivers/gpu/drm/vkms"
  rm -rf "$src"
  mv "$tmp/$source_pkg/drivers/gpu/drm/vkms" "$src"
  rm -rf "$tmp"
  trap - EXIT
  rm -f "$deb"
  vm_log "vkms sources extracted in $(vm_elapsed "$t0" "$(vm_now_ms)") s"
fi

# --- headers -----------------------------------------------------------------------------
t0=$(vm_now_ms)
work=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
for p in "$flavour_headers" "$common_headers" "$kbuild"; do
  deb=$(cached_deb "$p")
  [ -n "$deb" ] || unavailable "apt-get download produced no $p package"
  dpkg -x "$deb" "$work/root"
done
hdr="$work/root/usr/src/$flavour_headers"
if [ ! -f "$hdr/Makefile" ] || [ ! -f "$hdr/Module.symvers" ]; then
  vm_die "$flavour_headers has no Makefile or Module.symvers"
fi
# Its Makefile includes /usr/src/$common_headers/Makefile by absolute path: point it at the
# unpacked copy (scripts/ and tools/ are relative symlinks and resolve inside $work/root).
sed -i "s|^include /usr/src/|include $work/root/usr/src/|" "$hdr/Makefile"
grep -q "^include $work/root/" "$hdr/Makefile" || vm_die "unexpected $hdr/Makefile: $(cat "$hdr/Makefile")"
vm_log "headers unpacked in $(vm_elapsed "$t0" "$(vm_now_ms)") s"

# --- build ---------------------------------------------------------------------------------
t0=$(vm_now_ms)
cp -r "$src" "$work/vkms"
log="$work/make.log"
# CONFIG_DRM_VKMS=m turns the Makefile's obj-$(CONFIG_DRM_VKMS) on; the kernel's .config (in
# the headers) leaves it unset. BTF is skipped without vmlinux — harmless.
if ! (cd "$work" && vm_build make -C "$hdr" M="$work/vkms" CONFIG_DRM_VKMS=m -j"$(nproc)" modules) >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  vm_die "building vkms.ko failed (log above)"
fi
[ -f "$work/vkms/vkms.ko" ] || vm_die "make succeeded but left no vkms.ko"
if [ "$VM_ARCH" = amd64 ]; then
  strip --strip-debug "$work/vkms/vkms.ko"
else
  (cd "$work" && vm_apt aarch64-linux-gnu-strip --strip-debug "$work/vkms/vkms.ko")
fi
vm_log "compiled in $(vm_elapsed "$t0" "$(vm_now_ms)") s"

# The module must load into this kernel: same vermagic as its own DRM core, and every module
# it depends on must exist there.
want=$(modinfo -F vermagic "$(find "$moddir/kernel/drivers/gpu/drm" -maxdepth 1 -name 'drm.ko*' -print -quit)")
got=$(modinfo -F vermagic "$work/vkms/vkms.ko")
[ "$got" = "$want" ] || vm_die "vkms.ko has vermagic '$got', the kernel '$want'"
for dep in $(modinfo -F depends "$work/vkms/vkms.ko" | tr ',' ' '); do
  grep -qE "/${dep}\.ko(\.xz)?:" "$moddir/modules.dep" || vm_die "vkms.ko needs $dep, which $release does not have as a module"
done

mkdir -p "$out_dir"
cp "$work/vkms/vkms.ko" "$ko.tmp"
mv "$ko.tmp" "$ko"
rm -rf "$work"
trap - EXIT
# Keep the cache small: only this kernel's module, sources and packages.
find "$cache" -mindepth 1 -maxdepth 1 -type d ! -name debs ! -name "${out_dir##*/}" ! -name "src-$version" \
  -exec rm -rf {} +
find "$cache/debs" -maxdepth 1 -name '*.deb' ! -name "*_${version//:/%3a}_*" -delete
report
