#!/usr/bin/env bash
# Inside a Debian trixie system with dpkg-dev and lintian (the build chroot of
# scripts/package.sh): stages, builds and lintian-checks one kioskcards .deb.
# Usage: deb-build.sh --repo DIR --arch arm64|amd64 --binary FILE --out DIR [--sysroot DIR]
set -euo pipefail

sysroot=/opt/kiosk-arm64
while [ $# -gt 0 ]; do
  case $1 in
    --repo) repo=$2 ;;
    --arch) arch=$2 ;;
    --binary) binary=$2 ;;
    --out) out=$2 ;;
    --sysroot) sysroot=$2 ;;
    *) echo "deb-build: unknown argument $1" >&2; exit 2 ;;
  esac
  shift 2
done
cd "$repo"
deb=deploy/debian
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

case $arch in
  arm64) triplet=aarch64-linux-gnu run=(env "QEMU_LD_PREFIX=$sysroot/sysroot" "$binary") ;;
  amd64) triplet=x86_64-linux-gnu run=("$binary") ;;
  *) echo "deb-build: unknown arch $arch" >&2; exit 2 ;;
esac
version=$("${run[@]}" --version | awk '{print $NF}')

install -d "$root/usr/bin" "$root/usr/lib/systemd/system" "$root/usr/lib/sysusers.d" \
  "$root/usr/lib/udev/rules.d" "$root/etc/kioskcards" "$root/usr/share/kioskcards" \
  "$root/usr/share/doc/kioskcards" "$root/usr/share/man/man1" "$root/usr/share/bash-completion/completions"
install -m 0755 "$binary" "$root/usr/bin/KioskCards"
"$triplet-strip" --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/KioskCards"
sed -e 's|^ExecStart=/usr/local/bin/KioskCards|ExecStart=/usr/bin/KioskCards|' \
  -e 's|^Documentation=.*|Documentation=man:KioskCards(1) file:///usr/share/doc/kioskcards/README.Debian|' \
  -e 's|^# Installed by deploy/install-rpi.sh.*|# Installed by the kioskcards package; enable it with: systemctl enable --now kioskcards|' \
  deploy/kioskcards.service >"$root/usr/lib/systemd/system/kioskcards.service"
chmod 0644 "$root/usr/lib/systemd/system/kioskcards.service"
install -m 0644 "$deb/kioskcards.sysusers" "$root/usr/lib/sysusers.d/kioskcards.conf"
install -m 0644 "$deb/60-kioskcards.rules" "$root/usr/lib/udev/rules.d/60-kioskcards.rules"
install -m 0644 deploy/kiosk.conf.example "$root/etc/kioskcards/kiosk.conf"
install -m 0644 examples/onboarding.json "$root/etc/kioskcards/deck.json"
cp -r examples schema "$root/usr/share/kioskcards/"
find "$root/usr/share/kioskcards" -type d -exec chmod 0755 {} + -o -type f -exec chmod 0644 {} +
install -m 0644 "$deb/README.Debian" "$deb/copyright" "$root/usr/share/doc/kioskcards/"
install -D -m 0644 "$deb/lintian-overrides" "$root/usr/share/lintian/overrides/kioskcards"
{
  echo "kioskcards ($version) trixie; urgency=medium"
  echo
  echo "  * Built from $(git rev-parse --short HEAD 2>/dev/null || echo 'a work tree') with Debian's swiftlang."
  echo
  echo " -- KioskCards maintainers <maintainers@users.noreply.a-seed-7d4289fb.example>  $(date -R -u -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$root/usr/share/doc/kioskcards/changelog.gz"
python3 scripts/gen-docs.py --man "$work/KioskCards.1" --completion "$root/usr/share/bash-completion/completions/KioskCards" \
  --date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)" -- "${run[@]}"
gzip -9n <"$work/KioskCards.1" >"$root/usr/share/man/man1/KioskCards.1.gz"
chmod 0644 "$root/usr/share/bash-completion/completions/KioskCards"

# Depends from the binary's NEEDED libraries and their packages' symbols/shlibs files.
# libpq (the fleet), espeak-ng and ALSA (speech) are not NEEDED: the binary dlopens them when
# first used (docs/PERFORMANCE.md, "Libraries loaded when used"), so dpkg-shlibdeps does not
# see them. They are Recommends, not Depends: apt installs them by default, and a kiosk
# without a fleet or speech may leave them out (--no-install-recommends); one that then uses
# them says which package to install. trixie's ALSA is libasound2t64. libjpeg-turbo
# (photos), libqrencode (QR codes), libxcrypt (the staff PIN) and SQLite (the decisions) are
# dlopened too, so that a start maps none of them, but decks, the staff menu and the store
# need them: they are Depends. So are cairo and pango, which every drawing process loads
# (CGraphics) but the release build does not link.
mkdir -p "$work/src/debian"
printf 'Source: kioskcards\n\nPackage: kioskcards\nArchitecture: any\n' >"$work/src/debian/control"
cp "$root/usr/bin/KioskCards" "$work/src/KioskCards"
shlibdeps=()
if [ "$arch" = arm64 ]; then
  mkdir -p "$work/pkgs"
  # The arm64 libraries are not installed here: unpack the runtime packages of the sysroot
  # with their DEBIAN/ control (symbols, shlibs) and let dpkg-shlibdeps look there first.
  for d in "$sysroot"/apt/archives/*.deb; do
    case ${d##*/} in *-dev_* | fonts-* | fontconfig-config_*) continue ;; esac
    p=$work/pkgs/$(basename "$d" .deb)
    dpkg-deb -R "$d" "$p"
    shlibdeps+=("-S$p")
  done
fi
depends=$(cd "$work/src" && DEB_HOST_ARCH=$arch dpkg-shlibdeps -O "${shlibdeps[@]}" -e KioskCards 2>"$work/shlibdeps.log" |
  sed -n 's/^shlibs:Depends=//p') || { cat "$work/shlibdeps.log" >&2; exit 1; }
# Known noise: the Swift binary's $ORIGIN RPATH, libc6's merged-/usr diversion of the loader,
# and the binary analysed outside its build tree.
grep -vE 'ORIGIN is used in RPATH|diversion|binaries to analyze should|useless dependency' "$work/shlibdeps.log" >&2 || true
[ -n "$depends" ] || { echo "deb-build: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

install -d "$root/DEBIAN"
install -m 0755 "$deb/postinst" "$deb/prerm" "$deb/postrm" "$root/DEBIAN/"
printf '/etc/kioskcards/kiosk.conf\n/etc/kioskcards/deck.json\n' >"$root/DEBIAN/conffiles"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
installed=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOF
Package: kioskcards
Version: $version
Architecture: $arch
Maintainer: KioskCards maintainers <maintainers@users.noreply.a-seed-7d4289fb.example>
Installed-Size: $installed
Depends: $depends, libcairo2, libpango-1.0-0, libpangocairo-1.0-0, libsqlite3-0, libturbojpeg0, libqrencode4, libcrypt1, systemd | systemd-standalone-sysusers
Recommends: libpq5, libespeak-ng1, libasound2t64, fonts-noto-core, fonts-noto-cjk
Suggests: libjs-chart.js
Section: misc
Priority: optional
Description: touch card deck kiosk for bare Linux panels
 KioskCards shows a swipeable card deck or card list on a touch panel, drawing
 straight to DRM/KMS and reading the touchscreen through libevdev, without X11,
 Wayland or a browser. Every swipe is stored durably in SQLite and can be
 exported as CSV or JSON, or shown as a report with charts (KioskCards report,
 which inlines Chart.js from libjs-chart.js). It runs as the hardened systemd
 service kioskcards, which the package installs but does not enable.
EOF
file=$out/kioskcards_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$file" >/dev/null
echo "deb-build: $file: $(du -k "$file" | cut -f1) KB, installed $installed KB"
echo "deb-build: Depends: $depends, libcairo2, libpango-1.0-0, libpangocairo-1.0-0, libsqlite3-0, libturbojpeg0, libqrencode4, libcrypt1, systemd | systemd-standalone-sysusers"
lintian --fail-on error,warning --show-overrides "$file"
echo "deb-build: lintian clean (overrides, each with its reason: deploy/debian/lintian-overrides)"
