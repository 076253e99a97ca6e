# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# Live SYN_DROPPED on the two protocols without slots (93 does protocol B), read by
# `probe --watch` (the app's input path), stopped with SIGSTOP while events flood the device:
# - single touch (a clone of the eGalax 0eef:0001, position on ABS_Z/ABS_RX, BTN_TOUCH): the
#   finger is down, moves and lifts during the drop; after SIGCONT the contact is cancelled,
#   never left down, and the next touch begins and ends as usual;
# - protocol A (a clone of the N-Trig): two contacts down, during the drop one lifts and the
#   other moves; libevdev cannot restore anonymous contacts, so the first report after the drop
#   tells: the one that lifted is cancelled, the one still down keeps its id and moves there;
#   at the end nothing is left down.
VM_DISPLAY=virtio
VM_TIMEOUT=60

guest() {
  td=/testdata/touch
  if [ ! -r "$td/PROVENANCE.md" ]; then
    echo "skip: $td is missing (the checkout's Tests/Fixtures/touch is not mounted)"
    exit 77
  fi

  # --- single touch ---
  watch_clone "$td/egalax-0eef-0001-singletouch-z-rx-axes.evemu" single
  # ABS_Z (0x02) is x, ABS_RX (0x03) is y; BTN_TOUCH 0x14a.
  printf 'E: 0.000000 0003 0002 1000\nE: 0.000000 0003 0003 1000\nE: 0.000000 0001 014a 1\nE: 0.000000 0000 0000 0\n' \
    >/tmp/single-down.evemu
  evemu-play "$dev" </tmp/single-down.evemu
  kiosk_wait_until 10 grep -q '"phase":"began"' /tmp/single.out
  kill -STOP "$watcher"
  awk 'BEGIN {
    for (k = 1; k <= 3000; k++) printf "E: 0.000000 0003 0002 %d\nE: 0.000000 0000 0000 0\n", 1000 + k % 2000
    printf "E: 0.000000 0001 014a 0\nE: 0.000000 0000 0000 0\n"
  }' >/tmp/single-flood.evemu
  evemu-play "$dev" </tmp/single-flood.evemu
  kill -CONT "$watcher"
  kiosk_check "single touch: the watcher saw the drop" \
    kiosk_wait_until 10 grep -q "dropped events (SYN_DROPPED" /tmp/single.log
  single_cancelled() { grep -q '"id":1,[^}]*"phase":"cancelled"' /tmp/single.out; }
  kiosk_check "single touch: the finger that lifted during the drop is cancelled" kiosk_wait_until 10 single_cancelled
  printf 'E: 0.000000 0003 0002 2000\nE: 0.000000 0001 014a 1\nE: 0.000000 0000 0000 0\n' >/tmp/single-tap.evemu
  printf 'E: 0.040000 0001 014a 0\nE: 0.040000 0000 0000 0\n' >>/tmp/single-tap.evemu
  evemu-play "$dev" </tmp/single-tap.evemu
  single_tapped() { grep -q '"id":2,[^}]*"phase":"ended"' /tmp/single.out; }
  kiosk_check "single touch: the next touch begins and ends" kiosk_wait_until 10 single_tapped
  finish single

  # --- protocol A ---
  watch_clone "$td/ntrig-protocol-a-two-finger-touch-release.evemu" proto-a
  {
    contact 1600 6100
    contact 8000 1200
    echo "E: 0.000000 0001 014a 1"
    syn
  } >/tmp/a-down.evemu
  evemu-play "$dev" </tmp/a-down.evemu
  two_began() { [ "$(grep -o '"phase":"began"' /tmp/proto-a.out | wc -l)" -ge 2 ]; }
  kiosk_wait_until 10 two_began
  kill -STOP "$watcher"
  # The first contact moves right 2000 frames long; the second has lifted.
  awk 'BEGIN {
    for (k = 1; k <= 2000; k++)
      printf "E: 0.000000 0003 0035 %d\nE: 0.000000 0003 0036 6100\nE: 0.000000 0000 0002 0\nE: 0.000000 0000 0000 0\n", 1600 + k
  }' >/tmp/a-flood.evemu
  evemu-play "$dev" </tmp/a-flood.evemu
  kill -CONT "$watcher"
  kiosk_check "protocol A: the watcher saw the drop" \
    kiosk_wait_until 10 grep -q "dropped events (SYN_DROPPED" /tmp/proto-a.log
  # libevdev cannot query anonymous contacts, so its sync of a protocol-A device has nothing
  # to say about them (and no SYN_REPORT when nothing else changed): the next report frame is
  # the first news. Its ends are the contacts that vanished during the drop: cancelled.
  {
    contact 3700 6100
    syn
    echo "E: 0.020000 0001 014a 0"
    echo "E: 0.020000 0000 0000 0"
  } >/tmp/a-after.evemu
  evemu-play "$dev" </tmp/a-after.evemu
  a_ended() { grep -q '"id":1,[^}]*"phase":"ended"' /tmp/proto-a.out; }
  kiosk_wait_until 10 a_ended || true
  phases() { grep -o "\"id\":$1,[^}]*\"phase\":\"[a-z]*\"" /tmp/proto-a.out | sed 's/.*"phase":"//; s/"$//' | uniq | tr '\n' ' '; }
  echo "protocol A: contact 1: $(phases 1)| contact 2: $(phases 2)"
  kiosk_check "protocol A: the contact that lifted during the drop is cancelled" test "$(phases 2)" = "began cancelled "
  kiosk_check "protocol A: the one still down keeps its id, moves to where it is, ends when it lifts" \
    test "$(phases 1)" = "began moved ended "
  kiosk_check "protocol A: and it is at (3700,6100) -> (308.34,406.64) pt" \
    grep -q '"id":1,"x":308.34,"y":406.64,"phase":"moved"' /tmp/proto-a.out
  finish proto-a
}

# watch_clone FILE NAME: clones FILE, starts `probe --watch` on it (output /tmp/NAME.out, log
# /tmp/NAME.log); sets dev, device_pid, watcher.
watch_clone() {
  : >"/tmp/$2.device"
  : >"/tmp/$2.log"
  evemu-device "$1" >"/tmp/$2.device" 2>&1 &
  device_pid=$!
  kiosk_wait_until 10 grep -q '/dev/input/event' "/tmp/$2.device"
  dev=$(grep -o '/dev/input/event[0-9]*' "/tmp/$2.device" | head -n1)
  kiosk_wait_for "$dev" 5
  KioskCards probe --watch "$dev" >"/tmp/$2.out" 2>>"/tmp/$2.log" &
  watcher=$!
  kiosk_wait_until 10 grep -q "input: $dev '" "/tmp/$2.log"
}

# finish NAME: stops the watcher and the clone, shows the frames, checks nothing is left down.
finish() {
  kill "$watcher"
  wait "$watcher" || true
  kill "$device_pid"
  wait "$device_pid" 2>/dev/null || true
  grep -v '"phase":"moved"}\]}$' "/tmp/$1.out" || true
  down=$(grep -o '"phase":"began"' "/tmp/$1.out" | wc -l)
  up=$(grep -oE '"phase":"(ended|cancelled)"' "/tmp/$1.out" | wc -l)
  kiosk_check "$1: no contact is left down ($down began, $up ended or cancelled)" test "$down" = "$up"
  cp "/tmp/$1.out" "/tmp/$1.log" "$KIOSK_OUT/"
}

# contact X Y: one protocol-A contact report (ABS_MT_POSITION_X/Y, SYN_MT_REPORT).
contact() {
  printf 'E: 0.000000 0003 0035 %d\nE: 0.000000 0003 0036 %d\nE: 0.000000 0000 0002 0\n' "$1" "$2"
}

syn() { echo "E: 0.000000 0000 0000 0"; }
