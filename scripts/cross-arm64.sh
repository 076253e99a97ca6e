#!/usr/bin/env bash
# Builds KioskCards with Debian trixie's own Swift (swiftlang 6.0.3) in a trixie chroot:
# the aarch64 release binary (cross, through a Swift SDK bundle whose sysroot is `dpkg -x` of
# Debian's arm64 packages), the aarch64 test binaries, and the amd64 build (release binary +
# tests) with the same 6.0.3 compiler, so code that only the newer toolchain accepts fails here.
#
# Usage: scripts/cross-arm64.sh [--setup-only] [--no-tests] [--no-amd64-tests] [--toolchain 6.0.3]
#   --setup-only   only make/refresh the cached chroot, sysroot and SDK bundle
#   --no-tests     build the release binaries only
#   --no-amd64-tests  the aarch64 tests but only the amd64 release binary (the test code's
#                  6.0.3 compile is the aarch64 one: same compiler, same sources)
#   --arch A       arm64 (default: both arm64 and amd64), or amd64
#   --toolchain V  the compiler to use; only Debian trixie's 6.0.3 is available here
# Cache: $KIOSK_ARM64_CACHE (default ~/.cache/kioskcards-arm64), reused when present; about
# 4.5 GB. Outputs: .build-arm64/{release,debug} and .build-603/{release,debug} in the work tree.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib-trixie.sh
source scripts/lib-trixie.sh

setup_only=0 tests=1 amd64_tests=1 archs="arm64 amd64" toolchain=6.0.3
while [ $# -gt 0 ]; do
  case $1 in
    --setup-only) setup_only=1 ;;
    --no-tests) tests=0 ;;
    --no-amd64-tests) amd64_tests=0 ;;
    --arch) archs=$2; shift ;;
    --toolchain) toolchain=$2; shift ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "cross-arm64: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ "$toolchain" = 6.0.3 ] || { echo "cross-arm64: only Debian trixie's swiftlang 6.0.3 is available (got $toolchain)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "cross-arm64: needs root (debootstrap, chroot, mount namespaces)" >&2; exit 1; }

repo=$(pwd -P)
shared=$(cd .. && pwd -P)/shared
binds=(--bind "$repo" --bind "$ARM64_DIR=$ARM64_MOUNT")
[ -d "$shared" ] && binds+=(--bind "$shared")

stamp() { printf '%s\n' "$@" | sort | tr '\n' ' '; }

# The arm64 sysroot: dpkg -x of the closure of SYSROOT_PACKAGES (an apt run with an empty
# status file, so nothing of the chroot counts as installed), merged /usr, relative links, the
# arm64 Swift runtime and clang resources from swiftlang:arm64 + libswiftlang:arm64, and a
# fontconfig cache so fontconfig does not rescan every font under qemu.
ensure_sysroot() {
  local want
  want="v3 $(stamp "${SYSROOT_PACKAGES[@]}")"
  [ "$(cat "$ARM64_DIR/.sysroot" 2>/dev/null)" = "$want" ] && return 0
  trixie_log "arm64 sysroot → $ARM64_DIR/sysroot"
  mkdir -p "$ARM64_DIR"
  # shellcheck disable=SC2016  # expanded inside the chroot
  in_chroot "$BUILD_CHROOT" "${binds[@]}" -- bash -c '
    set -euo pipefail
    top=$1; shift
    work=$top/apt; rm -rf "$work" "$top/sysroot.tmp"; mkdir -p "$work/archives/partial" "$top/sysroot.tmp"
    : >"$work/status"
    opts=(-o APT::Architecture=arm64 -o "APT::Architectures::=arm64" -o Dir::State::status="$work/status"
          -o Dir::Cache::archives="$work/archives" -o Debug::NoLocking=1)
    apt-get update -qq
    apt-get install -y -qq --download-only "${opts[@]}" "$@" >"$work/download.log" 2>&1 ||
      { tail -20 "$work/download.log"; exit 1; }
    (cd "$work/archives" && apt-get download -qq swiftlang:arm64 libswiftlang:arm64) >>"$work/download.log" 2>&1
    n=0; for deb in "$work"/archives/*.deb; do
      case ${deb##*/} in swiftlang_*|libswiftlang_*) continue ;; esac
      dpkg -x "$deb" "$top/sysroot.tmp"; n=$((n + 1)); done
    echo "sysroot: $n packages, $(du -sh "$work/archives" | cut -f1) of .debs"
    s=$top/sysroot.tmp
    for d in lib bin sbin lib64; do
      if [ -d "$s/$d" ] && [ ! -L "$s/$d" ]; then cp -a "$s/$d/." "$s/usr/$d/" 2>/dev/null || true; rm -rf "${s:?}/$d"; fi
      [ -e "$s/usr/$d" ] && ln -sfn "usr/$d" "$s/$d"
    done
    # absolute symlinks point into the build machine: make them relative to the sysroot
    find "$s" -type l -lname "/*" | while read -r l; do
      t=$(readlink "$l"); ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$s$t")" "$l"; done
    rt=$top/runtime; rm -rf "$rt"; mkdir -p "$rt"
    dpkg -x "$work"/archives/swiftlang_*_arm64.deb "$rt"
    dpkg -x "$work"/archives/libswiftlang_*_arm64.deb "$rt"
    lib=$rt/usr/libexec/swift/lib
    cp -a "$lib/swift" "$s/usr/lib/swift"
    cp -a "$lib/swift_static" "$s/usr/lib/swift_static"
    mkdir -p "$s/usr/lib/clang" && cp -a "$(realpath "$lib/clang/17")" "$s/usr/lib/clang/17"
    rm -rf "$rt" "$work"/archives/swiftlang_*.deb "$work"/archives/libswiftlang_*.deb
    fc-cache -s -y "$s" >/dev/null 2>&1 || fc-cache -y "$s" -f >/dev/null 2>&1 || true
    rm -rf "$top/sysroot" && mv "$s" "$top/sysroot"
  ' sh "$ARM64_MOUNT" "${SYSROOT_PACKAGES[@]}"
  printf '%s' "$want" >"$ARM64_DIR/.sysroot"
}

# The aarch64 virtual kiosk's userland, unpacked into the sysroot (their closure, minus what
# is there already: dpkg -x of the same versions over the same files).
ensure_sysroot_vm() {
  local want
  want="v1 $(stamp "${VM_SYSROOT_PACKAGES[@]}") $(cat "$ARM64_DIR/.sysroot")"
  [ "$(cat "$ARM64_DIR/.sysroot-vm" 2>/dev/null)" = "$want" ] && return 0
  trixie_log "arm64 virtual kiosk userland (${VM_SYSROOT_PACKAGES[*]}) → $ARM64_DIR/sysroot"
  # shellcheck disable=SC2016  # expanded inside the chroot
  in_chroot "$BUILD_CHROOT" "${binds[@]}" -- bash -c '
    set -euo pipefail
    top=$1; shift
    work=$top/apt-vm; rm -rf "$work"; mkdir -p "$work/archives/partial"; : >"$work/status"
    apt-get install -y -qq --download-only -o APT::Architecture=arm64 -o "APT::Architectures::=arm64" \
      -o Dir::State::status="$work/status" -o Dir::Cache::archives="$work/archives" -o Debug::NoLocking=1 \
      "$@" >"$work/download.log" 2>&1 || { tail -20 "$work/download.log"; exit 1; }
    for deb in "$work"/archives/*.deb; do
      [ -e "$top/apt/archives/${deb##*/}" ] || dpkg -x "$deb" "$top/sysroot"; done
    s=$top/sysroot
    find "$s" -type l -lname "/*" | while read -r l; do
      t=$(readlink "$l"); ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$s$t")" "$l"; done
    rm -rf "$work"
  ' sh "$ARM64_MOUNT" "${VM_SYSROOT_PACKAGES[@]}"
  printf '%s' "$want" >"$ARM64_DIR/.sysroot-vm"
}

# The Swift SDK bundle (schema 4.0), paths relative to swift-sdk.json so it works both in the
# chroot and on the host.
ensure_sdk() {
  local bundle=$ARM64_DIR/sdk/$SDK_NAME.artifactbundle
  local variant=$bundle/$SDK_NAME/aarch64-unknown-linux-gnu
  mkdir -p "$variant"
  cat >"$bundle/info.json" <<EOF
{
  "schemaVersion": "1.0",
  "artifacts": {
    "$SDK_NAME": {
      "type": "swiftSDK",
      "version": "6.0.3-trixie",
      "variants": [{ "path": "$SDK_NAME/aarch64-unknown-linux-gnu", "supportedTriples": ["x86_64-unknown-linux-gnu", "x86_64-pc-linux-gnu"] }]
    }
  }
}
EOF
  local root=../../../../sysroot
  cat >"$variant/swift-sdk.json" <<EOF
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "aarch64-unknown-linux-gnu": {
      "sdkRootPath": "$root",
      "swiftResourcesPath": "$root/usr/lib/swift",
      "swiftStaticResourcesPath": "$root/usr/lib/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
EOF
  cat >"$variant/toolset.json" <<'EOF'
{ "schemaVersion": "1.0", "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] } }
EOF
}

# swift build in the chroot; fails on any warning but SwiftPM's own '-pthread' one.
chroot_swift() {
  local label=$1
  shift
  local log
  log=$(mktemp)
  local start=$SECONDS
  # shellcheck disable=SC2016  # expanded inside the chroot
  if ! in_chroot "$BUILD_CHROOT" "${binds[@]}" -- bash -c '
      cd "$1"; shift
      export PATH=/usr/libexec/swift/bin:$PATH
      "$@"' sh "$repo" env "$@" >"$log" 2>&1; then
    grep -vE '^\[[0-9]+/[0-9]+\]' "$log" | tail -40 >&2
    echo "cross-arm64: $label failed (log $log)" >&2
    return 1
  fi
  if grep -E 'warning:' "$log" | grep -v "prohibited flag(s): -pthread" | grep -v "SDKSettings.json" | grep -q .; then
    grep -E 'warning:' "$log" >&2
    echo "cross-arm64: $label printed warnings; warnings are bugs" >&2
    return 1
  fi
  echo "cross-arm64: $label: $((SECONDS - start)) s"
  rm -f "$log"
}

arm64_env=(
  "PKG_CONFIG_SYSROOT_DIR=$ARM64_MOUNT/sysroot"
  "PKG_CONFIG_PATH=$ARM64_MOUNT/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:$ARM64_MOUNT/sysroot/usr/share/pkgconfig"
  "PKG_CONFIG_LIBDIR=$ARM64_MOUNT/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:$ARM64_MOUNT/sysroot/usr/share/pkgconfig"
)
# Packaged binaries resolve every symbol at start and then make the GOT read-only for the
# whole run (-z relro -z now; lintian: hardening-no-relro, hardening-no-bindnow). lld, as for
# aarch64: gold (swiftc's default here) leaves out the GNU_RELRO segment.
bindnow=(-Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now)
arm64_sdk=(--swift-sdks-path "$ARM64_MOUNT/sdk" --swift-sdk "$SDK_NAME" --scratch-path .build-arm64)

t0=$SECONDS
ensure_build_chroot
if [[ $archs == *arm64* ]]; then
  ensure_sysroot
  ensure_sysroot_vm
  ensure_sdk
fi
echo "cross-arm64: chroot, sysroot and SDK ready: $((SECONDS - t0)) s (cache $KIOSK_ARM64_CACHE, $(du -sh "$KIOSK_ARM64_CACHE" 2>/dev/null | cut -f1))"
[ "$setup_only" = 1 ] && exit 0

for arch in $archs; do
  case $arch in
    arm64)
      rm -f .build-arm64/release/KioskCards # SwiftPM does not relink when only -Xlinker flags change
      chroot_swift "aarch64 release binary" "${arm64_env[@]}" bash scripts/release-build.sh \
        "${bindnow[@]}" "${arm64_sdk[@]}"
      [ "$tests" = 1 ] && chroot_swift "aarch64 test binaries" "${arm64_env[@]}" swift build --build-tests "${arm64_sdk[@]}"
      ls -l .build-arm64/release/KioskCards
      ;;
    amd64)
      rm -f .build-603/release/KioskCards
      chroot_swift "amd64 release binary (swiftlang 6.0.3)" bash scripts/release-build.sh \
        "${bindnow[@]}" --scratch-path .build-603
      [ "$tests" = 1 ] && [ "$amd64_tests" = 1 ] && chroot_swift "amd64 test binaries (swiftlang 6.0.3)" swift build --build-tests --scratch-path .build-603
      ;;
    *) echo "cross-arm64: unknown arch $arch" >&2; exit 2 ;;
  esac
done
echo "cross-arm64: done in $((SECONDS - t0)) s"
