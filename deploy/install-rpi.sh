#!/usr/bin/env bash
# Installs KioskCards on Raspberry Pi OS Lite (bookworm, 64-bit): the runtime Debian packages,
# the binary, the 'kiosk' user, the systemd unit, a sample deck and the config. Idempotent:
# an existing /etc/kioskcards/kiosk.conf or deck.json is never overwritten.
#
# Usage: sudo deploy/install-rpi.sh [--binary PATH] [--deck FILE] [--no-start] [--root DIR]
#   --binary PATH  the aarch64 KioskCards executable (default: the first of ./KioskCards,
#                  .build/aarch64-unknown-linux-gnu/release/KioskCards, .build/release/KioskCards)
#   --deck FILE    the sample deck to install when none is there (default examples/onboarding.json);
#                  images next to it (its images/ folder) are copied too
#   --no-start     install and enable, but do not (re)start the service now
#   --root DIR     stage into DIR (an image being built): no apt, no useradd, no systemctl
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
binary=""
deck="$repo/examples/onboarding.json"
start=yes
root=""

die() { echo "install-rpi: $*" >&2; exit 1; }
note() { echo "install-rpi: $*"; }

while (($#)); do
  case "$1" in
    --binary) binary=${2:?--binary needs a path}; shift 2 ;;
    --deck) deck=${2:?--deck needs a file}; shift 2 ;;
    --no-start) start=no; shift ;;
    --root) root=${2:?--root needs a directory}; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

if [ -z "$binary" ]; then
  for candidate in "$PWD/KioskCards" "$repo/.build/aarch64-unknown-linux-gnu/release/KioskCards" \
                   "$repo/.build/release/KioskCards"; do
    if [ -x "$candidate" ]; then binary=$candidate; break; fi
  done
fi
if [ -z "$binary" ] || [ ! -x "$binary" ]; then
  die "no KioskCards executable found; build it (deploy/README.md) and pass --binary PATH"
fi
[ -f "$deck" ] || die "sample deck '$deck' not found"

if [ -z "$root" ]; then
  [ "$(id -u)" -eq 0 ] || die "run as root (sudo $0)"
  if [ -r /etc/os-release ]; then
    # shellcheck disable=SC1091
    . /etc/os-release
    [ "${VERSION_CODENAME:-}" = bookworm ] || note "warning: written for bookworm, this is '${VERSION_CODENAME:-unknown}'"
  fi
  arch=$(uname -m)
  if command -v file >/dev/null; then
    kind=$(file -L -b "$binary")
    case "$arch:$kind" in
      aarch64:*aarch64* | x86_64:*x86-64*) ;;
      *) note "warning: $binary is '$kind', this machine is $arch" ;;
    esac
  fi

  note "installing runtime packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends \
    libevdev2 libdrm2 libcairo2 libpango-1.0-0 libpangocairo-1.0-0 libsqlite3-0 libpq5 libcrypt1 libstdc++6 \
    libturbojpeg0 libqrencode4 libglib2.0-0 libharfbuzz0b libespeak-ng1 espeak-ng-data libasound2 \
    fonts-dejavu-core fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji fontconfig evemu-tools sqlite3 tzdata >/dev/null

  if ! id kiosk >/dev/null 2>&1; then
    note "creating system user 'kiosk'"
    useradd --system --user-group --home-dir /var/lib/kioskcards --no-create-home \
      --shell /usr/sbin/nologin kiosk
  fi
  for group in video input render; do
    if getent group "$group" >/dev/null; then usermod -a -G "$group" kiosk; fi
  done
fi

note "installing the binary to $root/usr/local/bin/KioskCards"
install -d "$root/usr/local/bin" "$root/etc/systemd/system" "$root/etc/kioskcards" \
  "$root/usr/local/share/doc/kioskcards"
install -m 0755 "$binary" "$root/usr/local/bin/KioskCards"
install -m 0644 "$here/kioskcards.service" "$root/etc/systemd/system/kioskcards.service"
install -m 0644 "$here/README.md" "$root/usr/local/share/doc/kioskcards/README.md"
install -m 0644 "$repo/schema/deck.schema.json" "$root/usr/local/share/doc/kioskcards/deck.schema.json"

if [ ! -e "$root/etc/kioskcards/kiosk.conf" ]; then
  note "installing /etc/kioskcards/kiosk.conf (documented; edit it, then: systemctl restart kioskcards)"
  install -m 0644 "$here/kiosk.conf.example" "$root/etc/kioskcards/kiosk.conf"
else
  note "keeping the existing /etc/kioskcards/kiosk.conf (the new example is in the docs folder)"
  install -m 0644 "$here/kiosk.conf.example" "$root/usr/local/share/doc/kioskcards/kiosk.conf.example"
fi
# The config may hold the staff PIN's hash and a fleet-url with its password: readable by root
# and the service's group only (as set-pin leaves it). A staged image has no group kiosk yet.
if [ -z "$root" ]; then
  chgrp kiosk /etc/kioskcards/kiosk.conf
  chmod 0640 /etc/kioskcards/kiosk.conf
fi

if [ ! -e "$root/etc/kioskcards/deck.json" ]; then
  note "installing the sample deck $(basename "$deck") as /etc/kioskcards/deck.json"
  install -m 0644 "$deck" "$root/etc/kioskcards/deck.json"
  if [ -d "$(dirname "$deck")/images" ]; then
    install -d "$root/etc/kioskcards/images"
    install -m 0644 "$(dirname "$deck")"/images/*.png "$root/etc/kioskcards/images/"
  fi
  # The sample's "$schema" path points into the repository; drop it.
  sed -i '/"[$]schema"/d' "$root/etc/kioskcards/deck.json"
else
  note "keeping the existing /etc/kioskcards/deck.json"
fi
if ! "$binary" check-deck "$root/etc/kioskcards/deck.json" >/dev/null; then
  note "warning: /etc/kioskcards/deck.json has problems (above); the kiosk will not start until they are fixed"
fi

install -d -m 0750 "$root/var/lib/kioskcards"
if [ -z "$root" ]; then
  chown kiosk:kiosk /var/lib/kioskcards

  config_txt=/boot/firmware/config.txt
  [ -f "$config_txt" ] || config_txt=/boot/config.txt
  if [ -f "$config_txt" ] && ! grep -Eq '^[[:space:]]*dtoverlay=vc4-(f)?kms-v3d' "$config_txt"; then
    note "warning: $config_txt has no 'dtoverlay=vc4-kms-v3d': without the KMS driver there is no"
    note "         /dev/dri/card*. Add it under [all] and reboot (deploy/README.md)."
  fi

  systemctl daemon-reload
  systemctl enable kioskcards.service >/dev/null
  if [ "$start" = yes ]; then
    systemctl restart kioskcards.service
    note "started; follow the log with: journalctl -u kioskcards -f"
  else
    note "enabled; it starts at the next boot (or: systemctl start kioskcards)"
  fi
else
  note "staged into $root (no packages, user or systemctl: do those when the image boots)"
fi
