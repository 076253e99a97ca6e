#!/usr/bin/env bash
# Packs the virtual kiosk's initramfs as two concatenated newc cpio archives (the kernel
# unpacks them in order):
#   base (cached in $VM_CACHE/initramfs, rebuilt only when its inputs change): busybox-static
#     and its applet links, the kernel modules with their dependencies (resolved from
#     modules.dep, load order in /etc/kiosk/modules), evemu-tools with their libraries, fonts
#     (a DejaVu + Noto subset with Noto Sans Arabic, Noto Color Emoji, a Noto Sans CJK JP subset), fonts.conf and a
#     prebuilt fontconfig cache;
#   app (rebuilt every time, a second or so): /init, the guest helpers, the KioskCards binary
#     and its ldd closure, extra binaries, examples/ at /opt/kioskcards/examples, and the
#     evemu fixtures of Tests/Fixtures at /opt/kioskcards/fixtures.
#
# Usage: deploy/vm/build-initramfs.sh [--binary PATH] [--extra-bin PATH]... [--vkms KO] [--out FILE]
#   --binary PATH     the app (default .build/release/KioskCards; skipped with a warning if absent)
#   --extra-bin PATH  another host binary to put in /usr/bin with its libraries (repeatable)
#   --vkms KO|auto|none  vkms.ko for the `vkms` display, packed in the app layer at
#                     /lib/modules/<release>/extra/vkms.ko with the modules it depends on; its load
#                     order goes to /etc/kiosk/vkms-modules (guest/init.sh loads them only for
#                     kiosk.display=vkms). Default auto: the one build-vkms.sh cached for this
#                     kernel, if any
#   --out FILE        the initramfs (default .build/vm/initramfs.cpio)
#   env KIOSK_VM_FONTS   space-separated font files to pack instead of the default subset
#   env KIOSK_VM_MODULES space-separated module names to pack instead of the default set
# KIOSK_VM_ARCH=arm64: busybox, evemu-tools, fontconfig, fonts and every library come from
# the arm64 sysroot (scripts/cross-arm64.sh) instead of the host, the app is
# .build-arm64/release/KioskCards, the output .build/vm-arm64/initramfs.cpio, and .ko.xz
# modules are packed decompressed (busybox insmod loads plain .ko).
# Needs fetch-kernel.sh to have run. Prints the file, its size and the time it took.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

binary=$VM_APP
out="$VM_BUILD/initramfs.cpio"
extra_bins=()
vkms=auto
while (($#)); do
  case $1 in
    --binary) binary=$2 && shift 2 ;;
    --vkms) vkms=$2 && shift 2 ;;
    --extra-bin) extra_bins+=("$2") && shift 2 ;;
    --out) out=$2 && shift 2 ;;
    -h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' && exit 0 ;;
    *) vm_die "unknown option '$1' (see --help)" ;;
  esac
done

# The drivers the kiosk needs; dependencies are added from modules.dep.
if [ "$VM_ARCH" = arm64 ]; then
  # -M virt: no VGA (bochs); virtio_pci is built in.
  modules=${KIOSK_VM_MODULES:-"virtio-gpu uinput evdev 9p 9pnet_virtio"}
else
  modules=${KIOSK_VM_MODULES:-"virtio_pci virtio-gpu bochs cirrus uinput evdev xhci-pci usbhid hid-generic 9p 9pnet_virtio"}
fi
fonts=${KIOSK_VM_FONTS:-"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf
/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf
/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf
/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf
/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf
/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf
/usr/share/fonts/truetype/noto/NotoSansArabic-Bold.ttf
/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"}
# CJK: the Japanese face of Noto Sans CJK Regular cut down to CJK punctuation, kana, full-width
# forms and the unified ideographs (11 MB instead of the 19 MB collection), so CJK titles show
# as text, not tofu. Needs fontTools (python3-fonttools); without it the collection is packed.
cjk_font=/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
cjk_subset=/usr/share/fonts/opentype/noto/NotoSansCJKjp-Regular-subset.otf
cjk_unicodes="U+3000-30FF,U+31F0-31FF,U+FF00-FFEF,U+4E00-9FFF"
tools="/usr/bin/evemu-device /usr/bin/evemu-play /usr/bin/evemu-record /usr/bin/evemu-describe /usr/bin/evemu-event
/usr/bin/fc-match /usr/bin/fc-list /usr/bin/fc-cache"
busybox=$VM_SYSROOT/bin/busybox

t0=$(vm_now_ms)
kdir=$(vm_kernel_dir)
release=$(vm_kernel_release "$kdir")
moddir="$kdir/lib/modules/$release"
[ -f "$moddir/modules.dep" ] || depmod -b "$kdir" "$release"
command -v cpio >/dev/null || vm_die "cpio is missing — run scripts/setup.sh"
if [ ! -x "$busybox" ] || ldd "$busybox" >/dev/null 2>&1; then
  vm_die "$busybox is not a static busybox — install busybox-static (scripts/setup.sh)"
fi

# Copies a binary or library of the guest's system (the host's, or the arm64 sysroot's) to
# the same path under $1, following symlinks.
copy_same_path() {
  local root=$1 file=$2
  mkdir -p "$root$(dirname "$file")"
  cp -L "$VM_SYSROOT$file" "$root$file"
}

# ldd of a binary of the guest's architecture (arm64: the sysroot's loader under qemu-user).
target_ldd() {
  if [ -n "$VM_SYSROOT" ]; then
    vm_run_target "$VM_SYSROOT/lib/ld-linux-aarch64.so.1" --list "$1"
  else
    ldd "$1"
  fi
}

# Copies the shared libraries a dynamic binary needs (its ldd closure) under $1.
copy_ldd_closure() {
  local root=$1 bin=$2 lib
  while read -r lib; do
    [ -z "$VM_SYSROOT" ] || lib=${lib#"$VM_SYSROOT"} # the loader run by path names itself so
    [ -e "$root$lib" ] || copy_same_path "$root" "$lib"
  done < <(target_ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
}

# Copies module $1 (relative to $moddir) under $2, decompressed if it is .ko.xz; prints the
# path it has there (relative to the release's module directory).
copy_module() {
  local m=$1 dest=$2
  mkdir -p "$dest/$(dirname "$m")"
  case $m in
    *.ko.xz) xz -dc "$moddir/$m" >"$dest/${m%.xz}" && echo "${m%.xz}" ;;
    *) cp "$moddir/$m" "$dest/$m" && echo "$m" ;;
  esac
}

# Prints the module files (paths relative to $moddir) for the given names, dependencies first.
resolve_modules() {
  local -A seen=()
  local -a order=()
  local name path
  visit() {
    local path=$1 dep
    [ -n "${seen[$path]:-}" ] && return 0
    seen[$path]=1
    local -a deps
    read -r -a deps < <(awk -v p="$path:" '$1 == p { $1 = ""; print; exit }' "$moddir/modules.dep")
    for dep in "${deps[@]}"; do visit "$dep"; done
    order+=("$path")
  }
  for name in $modules; do
    # modules.dep spells names with '-' or '_' as the file does; modprobe treats them alike.
    path=$(awk -F: -v a="/${name//_/-}.ko" -v b="/${name//-/_}.ko" \
      'function ends(s, t) { return length(s) >= length(t) && substr(s, length(s) - length(t) + 1) == t }
       ends($1, a) || ends($1, b) || ends($1, a ".xz") || ends($1, b ".xz") { print $1; exit }' \
      "$moddir/modules.dep")
    if [ -z "$path" ] && grep -qE "/(${name//_/-}|${name//-/_})\.ko" "$moddir/modules.builtin" 2>/dev/null; then
      continue # built into this kernel
    fi
    [ -n "$path" ] || vm_die "module '$name' is not in $moddir (built in, or misspelt?)"
    visit "$path"
  done
  printf '%s\n' "${order[@]}"
}

# Writes the newc archive of directory $1 to file $2 (owner root, stable order).
pack() {
  (cd "$1" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) >"$2"
}

# --- base layer (cached) -------------------------------------------------------------------
key=$(
  {
    echo "$release ${kdir##*/} $VM_ARCH $VM_SYSROOT"
    echo "$modules"
    echo "$fonts"
    echo "$cjk_font $cjk_unicodes"
    echo "$tools"
    # Contents only (not names), so that the key does not depend on how the script was called.
    # shellcheck disable=SC2086  # word lists by design
    cat "$VM_DIR/build-initramfs.sh" "$busybox" "$VM_DIR/guest/fonts.conf"
    for f in $fonts $tools; do cat "$VM_SYSROOT$f"; done
    [ ! -f "$VM_SYSROOT$cjk_font" ] || cat "$VM_SYSROOT$cjk_font"
  } | sha256sum | cut -c1-16
)
base="$VM_CACHE/initramfs/base-$key.cpio"
vm_lock_cache
if [ ! -f "$base" ]; then
  vm_log "building the base layer ($base)"
  mkdir -p "$VM_CACHE/initramfs"
  root=$(mktemp -d "$VM_CACHE/initramfs/.root.XXXXXX")
  trap 'rm -rf "$root"' EXIT
  mkdir -p "$root"/{bin,dev,proc,sys,tmp,run,root,share,testdata,etc/kiosk,usr/bin,opt/kioskcards}
  mkdir -p "$root/lib/modules/$release" "$root"/var/{cache/fontconfig,lib,log,tmp}
  ln -s bin "$root/sbin"
  ln -s ../bin "$root/usr/sbin"
  cp "$busybox" "$root/bin/busybox"
  for applet in $(vm_run_target "$busybox" --list); do
    [ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"
  done
  resolve_modules | while read -r m; do
    copy_module "$m" "$root/lib/modules/$release"
  done >"$root/etc/kiosk/modules"
  for t in $tools; do
    copy_same_path "$root" "$t"
    copy_ldd_closure "$root" "$t"
  done
  mkdir -p "$root/etc/fonts"
  cp "$VM_DIR/guest/fonts.conf" "$root/etc/fonts/fonts.conf"
  for f in $fonts; do copy_same_path "$root" "$f"; done
  if [ -f "$VM_SYSROOT$cjk_font" ]; then
    mkdir -p "$root$(dirname "$cjk_subset")"
    if /usr/bin/python3 -c 'import fontTools' 2>/dev/null; then
      vm_log "subsetting $cjk_font (about a minute, once)"
      /usr/bin/python3 -m fontTools.subset "$VM_SYSROOT$cjk_font" --font-number=0 --unicodes="$cjk_unicodes" \
        --layout-features='*' --output-file="$root$cjk_subset" 2>/dev/null
    else
      vm_log "python3-fonttools is missing: packing all of $cjk_font"
      copy_same_path "$root" "$cjk_font"
    fi
  else
    vm_log "no $cjk_font (fonts-noto-cjk): CJK text will show as boxes in the guest"
  fi
  # The cache is built against the packed tree (--sysroot), so the guest finds it valid and
  # never rescans the fonts at startup.
  FONTCONFIG_FILE="$root/etc/fonts/fonts.conf" vm_run_target "$VM_SYSROOT/usr/bin/fc-cache" --sysroot="$root" -f >/dev/null 2>&1 ||
    vm_log "fc-cache failed; the guest will scan fonts at startup"
  echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
  echo "root:x:0:" >"$root/etc/group"
  pack "$root" "$base.tmp"
  mv "$base.tmp" "$base"
  rm -rf "$root"
  trap - EXIT
  # Older bases are dead weight — but keep the few newest: worktrees and CI jobs sharing the
  # cache with different inputs would otherwise delete each other's on every run.
  find "$VM_CACHE/initramfs" -maxdepth 1 -name 'base-*.cpio' -printf '%T@ %p\n' | sort -rn |
    tail -n +5 | cut -d' ' -f2- | while read -r old; do rm -f "$old"; done
fi

# --- app layer (every time) ----------------------------------------------------------------
mkdir -p "$(dirname "$out")"
app=$(mktemp -d "$(dirname "$out")/.app.XXXXXX")
trap 'rm -rf "$app"' EXIT
mkdir -p "$app"/{usr/bin,lib/kiosk,opt/kioskcards}
install -m 755 "$VM_DIR/guest/init.sh" "$app/init"
install -m 644 "$VM_DIR/guest/guest.sh" "$app/lib/kiosk/guest.sh"
install -m 644 "$VM_DIR/guest/preview.sh" "$app/lib/kiosk/preview.sh"
if [ -x "$binary" ]; then
  cp "$binary" "$app/usr/bin/KioskCards"
  copy_ldd_closure "$app" "$binary"
  # The libraries the app opens with dlopen when first used (cairo and pango, speech, the
  # fleet's PostgreSQL client, JPEG photos, QR codes, the staff PIN, the decisions' SQLite),
  # which ldd does not list: each with its own closure.
  for lib in libpangocairo-1.0.so.0 libespeak-ng.so.1 libasound.so.2 libpq.so.5 libturbojpeg.so.0 libqrencode.so.4 \
    libcrypt.so.1 libsqlite3.so.0; do
    path=""
    for d in /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu; do
      [ -e "$VM_SYSROOT$d/$lib" ] && path=$d/$lib && break
    done
    [ -n "$path" ] || vm_die "no $lib for the guest (install the package that has it: scripts/setup.sh)"
    copy_same_path "$app" "$path"
    copy_ldd_closure "$app" "$VM_SYSROOT$path"
  done
else
  vm_log "warning: no app binary at $binary — the initramfs has no KioskCards"
fi
for b in "${extra_bins[@]}"; do
  [ -x "$b" ] || vm_die "--extra-bin $b is not an executable"
  cp "$b" "$app/usr/bin/"
  copy_ldd_closure "$app" "$b"
done
[ -d "$REPO_ROOT/examples" ] && cp -r "$REPO_ROOT/examples" "$app/opt/kioskcards/examples"
# Speech (scenario 70): espeak-ng's phoneme data with the German and English dictionaries
# (the others would add 10 MB), and ALSA's configuration (alsa.conf defines the null and file
# PCMs the scenario captures through).
for d in "$VM_SYSROOT"/usr/lib/*/espeak-ng-data; do
  [ -d "$d" ] || continue
  rel=${d#"$VM_SYSROOT"}
  mkdir -p "$app$rel"
  find "$d" -maxdepth 1 -type f ! -name '*_dict' -exec cp {} "$app$rel/" \;
  for dict in de_dict en_dict; do [ -f "$d/$dict" ] && cp "$d/$dict" "$app$rel/"; done
  [ -d "$d/lang" ] && cp -r "$d/lang" "$app$rel/"
  [ -d "$d/voices" ] && cp -r "$d/voices" "$app$rel/"
done
if [ -f "$VM_SYSROOT/usr/share/alsa/alsa.conf" ]; then
  mkdir -p "$app/usr/share/alsa"
  cp "$VM_SYSROOT/usr/share/alsa/alsa.conf" "$app/usr/share/alsa/"
  [ -d "$VM_SYSROOT/usr/share/alsa/pcm" ] && cp -r "$VM_SYSROOT/usr/share/alsa/pcm" "$app/usr/share/alsa/"
fi
case $vkms in
  none) vkms="" ;;
  auto) vkms=$("$VM_DIR/build-vkms.sh" --path 2>/dev/null) || vkms="" ;;
  *) [ -f "$vkms" ] || vm_die "--vkms $vkms: no such file (deploy/vm/build-vkms.sh builds it)" ;;
esac
if [ -n "$vkms" ]; then
  # Its dependencies (drm, drm_kms_helper, drm_shmem_helper) are mostly in the base layer
  # already (virtio-gpu needs them too); any that are not are packed here. All are listed, in
  # load order: init.sh skips the ones already loaded.
  vkms_deps=$(modinfo -F depends "$vkms" | tr ',' ' ')
  base_modules=$(resolve_modules)
  vkms_order=$(modules=$vkms_deps resolve_modules)
  while read -r m; do
    [ -n "$m" ] || continue
    grep -qxF "$m" <<<"$base_modules" && continue
    copy_module "$m" "$app/lib/modules/$release" >/dev/null
  done <<<"$vkms_order"
  mkdir -p "$app/lib/modules/$release/extra" "$app/etc/kiosk"
  cp "$vkms" "$app/lib/modules/$release/extra/vkms.ko"
  printf '%s\nextra/vkms.ko\n' "${vkms_order//.ko.xz/.ko}" | sed '/^$/d' >"$app/etc/kiosk/vkms-modules"
fi
# The test fixtures (e.g. the keyboard the VM scenarios make with evemu-device).
mkdir -p "$app/opt/kioskcards/fixtures"
cp "$REPO_ROOT"/Tests/Fixtures/*.evemu "$app/opt/kioskcards/fixtures/"
pack "$app" "$out.app"
cat "$base" "$out.app" >"$out.tmp"
mv "$out.tmp" "$out"
rm -f "$out.app"

size=$(du -h "$out" | cut -f1)
echo "initramfs $out ($size, kernel $release, base ${base##*/}${vkms:+, with vkms}) in $(vm_elapsed "$t0" "$(vm_now_ms)") s"
