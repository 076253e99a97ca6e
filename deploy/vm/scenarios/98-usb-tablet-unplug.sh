# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# A real USB removal mid-drag (not uinput): the host presses QEMU's usb-tablet, which the app
# takes for an absolute pointer (one finger while BTN_LEFT is held), drags 300 px right and
# pulls the tablet out (QMP device_del) with the button still held. The kernel's usbhid
# disconnect releases BTN_LEFT for its readers (SYN_REPORT value 1) before ENODEV: the drag must
# be cancelled — no decision, and the card is back at rest on the screen. Plugged in again, the
# tablet is opened again and a drag dismisses the first card.
VM_DISPLAY=virtio
VM_TABLET=1
VM_TIMEOUT=90

guest() {
  KioskCards run --deck examples/onboarding.json 2>/tmp/app.log &
  app=$!
  kiosk_wait_until 60 grep -q 'first frame' /tmp/app.log
  tablet_lines() { grep -c "input: /dev/input/event[0-9]* '.*USB Tablet': absolute pointer" /tmp/app.log || true; }
  opened() { [ "$(tablet_lines)" -ge "$1" ]; }
  kiosk_wait_until 30 opened 1
  grep "USB Tablet" /tmp/app.log
  # A raw recording beside the app shows what the kernel hands readers when the tablet goes.
  tablet=$(grep -o "input: /dev/input/event[0-9]* '.*USB Tablet'" /tmp/app.log | head -n1 | cut -d' ' -f2)
  evemu-record "$tablet" >/tmp/tablet.evemu 2>&1 &
  kiosk_wait_open $! "$tablet"
  kiosk_mark "tablet ready"
  kiosk_wait_host unplugged 60
  removed() { grep -q 'input: /dev/input/event[0-9]* removed' /tmp/app.log; }
  kiosk_check "the app closes the tablet" kiosk_wait_until 10 removed
  kiosk_mark "tablet removed"
  kiosk_wait_host looked 30
  kiosk_check "the drag cut short by the unplug decided nothing" test -z "$(grep '^decision:' /tmp/app.log)"
  echo "the last events readers got from the tablet:"
  grep '^E:' /tmp/tablet.evemu | tail -n 2
  kiosk_check "(the kernel released BTN_LEFT itself, closing the frame with SYN_REPORT value 1)" \
    kiosk_matches "$(grep '^E:' /tmp/tablet.evemu | tail -n 2 | tr '\n' ' ')" "*0001 0110 0000*0000 0000 0001*"
  kiosk_mark "tablet checked"
  kiosk_wait_until 30 opened 2
  kiosk_mark "tablet replugged"
  decided() { grep -q '^decision:' /tmp/app.log; }
  kiosk_wait_until 30 decided || true
  kiosk_check "plugged in again, a drag dismisses the first card" \
    kiosk_matches "$(grep '^decision:' /tmp/app.log)" "decision: swipedRight card 'willkommen' *"
  kill "$app"
  wait "$app"
  cp /tmp/app.log "$KIOSK_OUT/"
}

host() {
  region="340 300 120 60" # the card's lower middle (see 94-hotplug)
  qmp wait-serial 'KIOSK-MARK: tablet ready' --timeout 80
  # shellcheck disable=SC2086  # the region is four words
  before=$(qmp region-avg $region --save at-rest.png)
  qmp tablet-down 200 240
  for x in 250 300 350 400 450 500; do
    qmp tablet-move "$x" 240
  done
  # The card follows the pen (else the spring-back check below would pass on a card that
  # never moved).
  # shellcheck disable=SC2086
  qmp expect-region-away --within 5 --save dragging.png $region "$before" 40
  qmp tablet-unplug
  touch "$VM_SHARE/unplugged"
  qmp wait-serial 'KIOSK-MARK: tablet removed' --timeout 30
  # shellcheck disable=SC2086
  qmp expect-region --within 5 --save sprung-back.png $region "$before" 6
  touch "$VM_SHARE/looked"
  qmp wait-serial 'KIOSK-MARK: tablet checked' --timeout 30
  qmp tablet-plug
  qmp wait-serial 'KIOSK-MARK: tablet replugged' --timeout 40
  qmp tablet-drag 200 240 600 240 300
}
