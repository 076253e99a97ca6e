# shellcheck shell=bash
# Runs inside the clean trixie chroot of scripts/test-deb.sh (bash -c, $1 = the .deb).
set -euo pipefail
deb=$1
failed=0
check() {
  local what=$1
  shift
  if "$@"; then echo "test-deb:   ok   $what"; else echo "test-deb:   FAIL $what" && failed=1; fi
}
apt-get update -qq
apt-get install -y -qq --no-install-recommends "$deb" >/tmp/apt.log 2>&1 || { tail -30 /tmp/apt.log; exit 1; }
echo "test-deb:   apt install ./$(basename "$deb"): $(grep -c '^Setting up' /tmp/apt.log) packages set up"
check "KioskCards --version: $(KioskCards --version)" KioskCards --version
for f in /usr/share/kioskcards/examples/*.json /usr/share/kioskcards/examples/*/*.json /etc/kioskcards/deck.json; do
  # shellcheck disable=SC2016  # $1 of the inner sh
  check "check-deck $f" sh -c 'KioskCards check-deck "$1" >/dev/null' sh "$f"
done
# --man=no: a minbase chroot has no man(1) to resolve Documentation=man:KioskCards(1) with;
# the page itself is checked below.
check "systemd-analyze verify kioskcards.service" systemd-analyze verify --man=no /usr/lib/systemd/system/kioskcards.service
groups=$(id -nG kiosk)
check "user kiosk in video and input ($groups)" bash -c "[[ ' $groups ' == *' video '* && ' $groups ' == *' input '* ]]"
check "conffiles kiosk.conf and deck.json" bash -c \
  "dpkg-query -W -f='\${Conffiles}' kioskcards | grep -q /etc/kioskcards/kiosk.conf && dpkg-query -W -f='\${Conffiles}' kioskcards | grep -q /etc/kioskcards/deck.json"
state=$(systemctl is-enabled kioskcards.service 2>/dev/null || true)
check "service installed, not enabled ($state)" test "$state" = disabled
check "man page and bash completion" test -s /usr/share/man/man1/KioskCards.1.gz -a -s /usr/share/bash-completion/completions/KioskCards
check "purge" bash -c 'apt-get purge -y -qq kioskcards >/tmp/purge.log 2>&1 && ! test -e /usr/bin/KioskCards'
exit $failed
