#!/usr/bin/env bash
# Fetches Debian's kernel for the virtual kiosk without installing it: apt-get download of the
# versioned package that linux-image-amd64 (KIOSK_VM_ARCH=arm64: trixie's linux-image-arm64,
# through the trixie build chroot's apt) depends on, dpkg -x into the cache. Idempotent:
# a cached package is reused, and with no package index (offline) the newest cached kernel is.
#
# Usage: deploy/vm/fetch-kernel.sh
#   env KIOSK_VM_KERNEL_PKG=linux-image-6.1.0-57-amd64  pins the package instead of resolving it
#   env KIOSK_VM_CACHE=DIR                              cache dir (default ~/.cache/kioskcards-vm)
# Prints one line: "kernel <uname -r> (<package> <version>) in <dir>".
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

resolve_package() {
  # linux-image-ARCH is a metapackage; its first versioned dependency is the real kernel.
  vm_apt apt-cache depends "linux-image-$VM_ARCH" 2>/dev/null |
    awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { sub(/:.*/, "", $2); print $2; exit }'
}

pkg=${KIOSK_VM_KERNEL_PKG:-}
# arm64 packages are foreign in the (amd64) build chroot that resolves them.
qualifier=""
[ "$VM_ARCH" = amd64 ] || qualifier=":$VM_ARCH"
if [ -z "$pkg" ]; then
  pkg=$(resolve_package)
  if [ -z "$pkg" ] && [ "$(id -u)" -eq 0 ]; then
    vm_log "apt-cache does not know linux-image-$VM_ARCH; running apt-get update"
    vm_apt apt-get update -qq >/dev/null 2>&1 || true
    pkg=$(resolve_package)
  fi
fi

# Unpacks the bzImage's xz payload to boot/vmlinux-<release> when the kernel can boot it
# directly (PVH entry): under TCG that skips ~4 s of in-guest decompression on every boot.
extract_vmlinux() {
  local tree=$1 release image offset
  release=$(vm_kernel_release "$tree")
  image="$tree/boot/vmlinuz-$release"
  grep -q '^CONFIG_PVH=y' "$tree/boot/config-$release" || return 0
  grep -q '^CONFIG_KERNEL_XZ=y' "$tree/boot/config-$release" || return 0
  offset=$(LC_ALL=C grep -abo -m1 $'\xfd7zXZ' "$image" | cut -d: -f1 | head -n1)
  [ -n "$offset" ] || return 0
  # xz stops at the end of the stream; the bzImage's trailer after it is ignored.
  if xz -dc --single-stream < <(tail -c +"$((offset + 1))" "$image") >"$tree/boot/vmlinux-$release.tmp"; then
    mv "$tree/boot/vmlinux-$release.tmp" "$tree/boot/vmlinux-$release"
  else
    rm -f "$tree/boot/vmlinux-$release.tmp"
    vm_log "could not unpack vmlinux from $image; booting the bzImage (slower)"
  fi
}

mkdir -p "$VM_CACHE/debs" "$VM_CACHE/kernel"
vm_lock_cache
if [ -z "$pkg" ]; then
  # Offline and no index: use what an earlier run left.
  [ -d "$VM_CACHE/kernel/current/boot" ] ||
    vm_die "cannot resolve linux-image-$VM_ARCH (apt-get update?) and no kernel is cached"
  vm_log "cannot resolve linux-image-$VM_ARCH; using the cached kernel"
else
  version=$(vm_apt apt-cache policy "$pkg$qualifier" 2>/dev/null | awk '$1 == "Candidate:" { print $2; exit }')
  if [ -z "$version" ] || [ "$version" = "(none)" ]; then
    vm_die "apt-cache has no candidate for $pkg"
  fi
  tree="$VM_CACHE/kernel/$pkg-$version"
  if [ ! -d "$tree/boot" ]; then
    deb=$(find "$VM_CACHE/debs" -maxdepth 1 -name "${pkg}_${version//:/%3a}_*.deb" -print -quit)
    if [ -z "$deb" ]; then
      t0=$(vm_now_ms)
      vm_log "downloading $pkg $version"
      # apt-get download writes into the current directory; the _apt sandbox cannot write a
      # root-owned cache, so apt warns and downloads as root — harmless here.
      (cd "$VM_CACHE/debs" && vm_apt apt-get download -q "$pkg$qualifier=$version" >&2 2>"$VM_CACHE/debs/.apt.log") ||
        vm_die "apt-get download $pkg=$version failed: $(grep -v unsandboxed "$VM_CACHE/debs/.apt.log")"
      deb=$(find "$VM_CACHE/debs" -maxdepth 1 -name "${pkg}_*.deb" -print -quit)
      [ -n "$deb" ] || vm_die "apt-get download $pkg=$version produced no .deb"
      vm_log "downloaded in $(vm_elapsed "$t0" "$(vm_now_ms)") s"
    fi
    t0=$(vm_now_ms)
    tmp=$(mktemp -d "$VM_CACHE/kernel/.extract.XXXXXX")
    dpkg -x "$deb" "$tmp"
    # Only the kernel image, its config and its modules are used; drop the rest. (Trixie's
    # packages keep the modules in usr/lib/modules: merged /usr.)
    if [ -d "$tmp/usr/lib/modules" ] && [ ! -d "$tmp/lib/modules" ]; then
      mkdir -p "$tmp/lib" && mv "$tmp/usr/lib/modules" "$tmp/lib/modules"
    fi
    rm -rf "${tmp:?}/usr" "${tmp:?}/etc"
    # The package leaves modules.dep to its postinst; build-initramfs.sh needs it.
    depmod -b "$tmp" "$(vm_kernel_release "$tmp")"
    extract_vmlinux "$tmp"
    rm -rf "$tree"
    mv "$tmp" "$tree"
    vm_log "extracted in $(vm_elapsed "$t0" "$(vm_now_ms)") s"
    # Keep the cache small: remove older kernel trees and packages.
    find "$VM_CACHE/kernel" -mindepth 1 -maxdepth 1 -type d ! -name "$pkg-$version" ! -name '.*' \
      -exec rm -rf {} +
    find "$VM_CACHE/debs" -maxdepth 1 -name '*.deb' ! -name "${pkg}_${version//:/%3a}_*" -delete
  fi
  ln -sfn "$pkg-$version" "$VM_CACHE/kernel/current"
fi

dir=$(vm_kernel_dir)
release=$(vm_kernel_release "$dir")
# A kernel tree from before vmlinux extraction existed gets it now.
[ -f "$dir/boot/vmlinux-$release" ] || extract_vmlinux "$dir"
echo "kernel $release (${dir##*/}) in $dir"
