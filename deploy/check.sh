#!/usr/bin/env bash
# Checks deploy/: the unit with systemd-analyze (verify, then the security exposure figure)
# and every shell script with shellcheck. Run by scripts/test.sh; needs the built binary.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== shellcheck deploy/*.sh scripts/*.sh"
shellcheck deploy/*.sh scripts/*.sh

bin="$PWD/.build/debug/KioskCards"
[ -x "$bin" ] || { echo "check: build first (swift build)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# systemd-analyze verify rejects a missing ExecStart binary; the build machine has no
# /usr/local/bin/KioskCards, so verify a copy whose ExecStart points at the built binary.
sed "s|/usr/local/bin/KioskCards|$bin|" deploy/kioskcards.service >"$tmp/kioskcards.service"

echo "== the package's udev rule keeps /dev/uinput root's"
# A group or a mode with group/other bits on uinput would let its members make virtual
# keyboards outside the service's sandbox (docs/SECURITY.md).
rule=$(grep -v '^#' deploy/debian/60-kioskcards.rules | grep 'KERNEL=="uinput"')
case "$rule" in
  *'GROUP="root"'*'MODE="0600"'*) ;;
  *) echo "check: deploy/debian/60-kioskcards.rules must give /dev/uinput GROUP=\"root\" MODE=\"0600\": $rule" >&2; exit 1 ;;
esac
if grep -v '^#' deploy/debian/60-kioskcards.rules | grep -E 'uinput' | grep -Eq 'MODE="0?[0-7][1-7][0-7]"|MODE="0?[0-7][0-7][1-7]"'; then
  echo "check: a rule opens /dev/uinput to a group or others" >&2; exit 1
fi

echo "== systemd-analyze verify deploy/kioskcards.service"
systemd-analyze verify "$tmp/kioskcards.service"

echo "== the unit waits for nothing the first card does not need"
# Only the console it takes over; the default dependencies bring the local file systems. A
# device it needs is opened on hotplug, the network is the fleet worker's business.
order=$(grep -E '^(After|Requires|Wants|BindsTo|Requisite)=' deploy/kioskcards.service || true)
if [ "$order" != "After=getty@tty1.service" ]; then
  printf 'check: deploy/kioskcards.service must order itself after getty@tty1.service only, not:\n%s\n' "$order" >&2
  exit 1
fi
for unit in deploy/kioskcards.service deploy/kioskcards-fleet.conf; do
  if grep -v '^#' "$unit" | grep -Eq 'udev-settle|network-online|network\.target|systemd-user-sessions'; then
    echo "check: $unit waits for udev-settle, the network or user sessions; the kiosk's hotplug handles late devices" >&2
    exit 1
  fi
done

echo "== systemd-analyze verify deploy/report/ and deploy/fleet-check/ (the report and fleet check timers)"
for unit in deploy/fleet-check/*.service deploy/fleet-check/*.timer deploy/report/*.service deploy/report/*.timer; do
  sed "s|/usr/local/bin/KioskCards|$bin|g" "$unit" >"$tmp/$(basename "$unit")"
done
# verify prints unknown keys and bad values as warnings and still exits 0: any output fails.
out=$(cd "$tmp" && systemd-analyze verify --man=no ./kioskcards-fleet-check.service ./kioskcards-fleet-check.timer \
  ./kioskcards-report.service ./kioskcards-report.timer 2>&1) || { printf '%s\n' "$out" >&2; exit 1; }
[ -z "$out" ] || { printf '%s\n' "$out" >&2; echo "check: systemd-analyze verify warned" >&2; exit 1; }

echo "== systemd-analyze security --offline=yes"
report=$(systemd-analyze security --offline=yes --no-pager "$tmp/kioskcards.service" 2>&1 || true)
figure=$(printf '%s\n' "$report" | sed -n 's/.*Overall exposure level for kioskcards.service: \([0-9.]*\).*/\1/p')
[ -n "$figure" ] || { printf '%s\n' "$report" >&2; echo "check: no exposure figure" >&2; exit 1; }
echo "exposure $figure (deploy/README.md records 0.7)"
# Fail when the unit gets noticeably weaker than the README says.
awk -v f="$figure" 'BEGIN { exit !(f <= 1.5) }' || { echo "check: exposure $figure is above 1.5" >&2; exit 1; }

echo "== every library the binary links is installed by install-rpi.sh (ldd)"
# Each NEEDED library's Debian package (dpkg -S on the path ldd resolves) must be in the
# install script's apt-get list; trixie's t64 renames count as the old name. The Swift runtime
# is linked statically into release builds (--static-swift-stdlib) and libc6 is essential.
listed=$(sed -n '/apt-get install/,/>\/dev\/null/p' deploy/install-rpi.sh)
unlisted=()
while read -r lib path; do
  case "$lib" in libswift* | libdispatch.so* | libBlocksRuntime.so* | libFoundation*.so* | lib_FoundationICU.so*) continue ;; esac
  case "$lib" in libc.so.* | libm.so.* | ld-linux* | libpthread.so.* | libdl.so.* | librt.so.*) continue ;; esac
  if [ -z "$path" ] || [ ! -e "$path" ]; then unlisted+=("$lib (not found by ldd)"); continue; fi
  real=$(readlink -f "$path")
  pkg=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$real" 2>/dev/null || dpkg -S "${real#/usr}" 2>/dev/null || true)
  pkg=${pkg%%:*}
  [ -n "$pkg" ] || { unlisted+=("$lib (no Debian package owns $path)"); continue; }
  grep -qw -- "${pkg%t64}" <<<"$listed" || unlisted+=("$lib ($pkg)")
done < <(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | while read -r n; do
  printf '%s %s\n' "$n" "$(ldd "$bin" | awk -v n="$n" '$1 == n { print $3 }')"
done)
if ((${#unlisted[@]})); then
  printf 'check: install-rpi.sh does not install: %s\n' "${unlisted[@]}" >&2
  exit 1
fi
echo "all linked libraries are installed"

echo "== install-rpi.sh --root (staged install)"
deploy/install-rpi.sh --binary "$bin" --root "$tmp/root" --deck examples/products/products.json >/dev/null
for f in usr/local/bin/KioskCards etc/systemd/system/kioskcards.service etc/kioskcards/kiosk.conf \
         etc/kioskcards/deck.json etc/kioskcards/images/mug.png; do
  [ -e "$tmp/root/$f" ] || { echo "check: staged install lacks /$f" >&2; exit 1; }
done
"$bin" check-deck "$tmp/root/etc/kioskcards/deck.json" >/dev/null
echo "deploy checks passed"
