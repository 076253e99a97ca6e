# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# Live SYN_DROPPED: two readers of a uinput clone of the Atmel maXTouch 800x480 panel — the
# `probe --watch` decoder and the running app — are stopped (SIGSTOP) with fingers A and B
# down, while ~6000 events flood the device, far past the kernel's per-client buffer: A moves
# and lifts, B moves, a new finger C lands. Both are continued (SIGCONT); the kernel hands them
# SYN_DROPPED and libevdev resynchronises from the device's state. Then B and C lift.
# Checks: both readers saw the drop; the watcher cancels A (vanished during the drop), moves B to
# where it really is, begins C where it really is, ends B and C when they lift, and leaves no
# contact down; the app decides nothing from the cut-short drag and keeps working: a new
# one-finger swipe right dismisses the first card.
VM_DISPLAY=virtio
VM_TIMEOUT=90

guest() {
  recording=/testdata/touch/atmel-mxt-800x480-one-finger-fast-taps.evemu
  if [ ! -r "$recording" ]; then
    echo "skip: $recording is missing (the checkout's Tests/Fixtures/touch is not mounted)"
    exit 77
  fi
  KioskCards run --deck examples/onboarding.json 2>/tmp/app.log &
  app=$!
  kiosk_wait_until 60 grep -q 'first frame' /tmp/app.log
  evemu-device "$recording" >/tmp/device.out 2>&1 &
  kiosk_wait_until 10 grep -q '/dev/input/event' /tmp/device.out
  dev=$(grep -o '/dev/input/event[0-9]*' /tmp/device.out | head -n1)
  kiosk_wait_until 10 grep -q "input: $dev '" /tmp/app.log
  KioskCards probe --watch "$dev" >/tmp/watch.out 2>/tmp/watch.log &
  watcher=$!
  kiosk_wait_until 10 grep -q "input: $dev '" /tmp/watch.log

  # A (slot 0) at (100,100) and B (slot 1) at (700,400) land.
  {
    frame 0 100 100 100
    frame 1 101 700 400
    echo "E: 0.000000 0001 014a 1"
    syn
  } >/tmp/down.evemu
  evemu-play "$dev" </tmp/down.evemu
  began2() { [ "$(grep -o '"phase":"began"' /tmp/watch.out | wc -l)" -ge 2 ]; }
  kiosk_wait_until 10 began2

  kill -STOP "$watcher" "$app"
  flood >/tmp/flood.evemu
  events=$(grep -c '^E:' /tmp/flood.evemu)
  t0=$(cut -d' ' -f1 /proc/uptime)
  evemu-play "$dev" </tmp/flood.evemu
  t1=$(cut -d' ' -f1 /proc/uptime)
  echo "flood: $events events in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s while both readers were stopped" |
    tee -a "$KIOSK_OUT/figures.txt"
  kill -CONT "$watcher" "$app"
  kiosk_check "the watcher saw the drop" kiosk_wait_until 10 grep -q "dropped events (SYN_DROPPED" /tmp/watch.log
  kiosk_check "the app saw the drop" kiosk_wait_until 10 grep -q "$dev: the kernel dropped events (SYN_DROPPED" /tmp/app.log
  c_began() { grep -q '"id":3,[^}]*"phase":"began"' /tmp/watch.out; }
  kiosk_wait_until 10 c_began || true
  cp /tmp/watch.out /tmp/after-resync.out

  # B and C lift.
  {
    echo "E: 0.000000 0003 002f 1"
    echo "E: 0.000000 0003 0039 -1"
    echo "E: 0.000000 0003 002f 2"
    echo "E: 0.000000 0003 0039 -1"
    echo "E: 0.000000 0001 014a 0"
    syn
  } >/tmp/up.evemu
  evemu-play "$dev" </tmp/up.evemu
  all_up() { grep -q '"id":3,[^}]*"phase":"ended"' /tmp/watch.out; }
  kiosk_wait_until 10 all_up || true
  kill "$watcher"
  wait "$watcher" || true
  cp /tmp/watch.out /tmp/watch.log "$KIOSK_OUT/"
  cat /tmp/watch.out

  # id 1 = A, 2 = B, 3 = C (the watcher numbers contacts in order of appearance).
  phases() { grep -o "\"id\":$1,[^}]*\"phase\":\"[a-z]*\"" /tmp/watch.out | sed 's/.*"phase":"//; s/"$//' | uniq | tr '\n' ' '; }
  last_at() { grep -o "\"id\":$1,\"x\":[0-9.]*,\"y\":[0-9.]*" "$2" | tail -n1 | sed 's/.*"x"://; s/,"y":/ /'; }
  echo "A: $(phases 1)| B: $(phases 2)| C: $(phases 3)"
  kiosk_check "A, lifted during the drop, is cancelled (where and how it lifted is lost)" \
    test "$(phases 1)" = "began cancelled "
  kiosk_check "B lives through the drop and ends when it lifts" test "$(phases 2)" = "began moved ended "
  kiosk_check "C, landed during the drop, begins and ends" kiosk_matches "$(phases 3)" "began *ended "
  # The Atmel's 0..799 x 0..479 maps onto 800x480 points at unit centres: x + 0.5, y + 0.5.
  kiosk_check "after the resync B is where it really is: (300,150) -> $(last_at 2 /tmp/after-resync.out)" \
    test "$(last_at 2 /tmp/after-resync.out)" = "300.5 150.5"
  kiosk_check "and C too: (400,240) -> $(last_at 3 /tmp/after-resync.out)" \
    test "$(last_at 3 /tmp/after-resync.out)" = "400.5 240.5"
  down=$(grep -o '"phase":"began"' /tmp/watch.out | wc -l)
  up=$(grep -oE '"phase":"(ended|cancelled)"' /tmp/watch.out | wc -l)
  kiosk_check "no contact is left down ($down began, $up ended)" test "$down" = "$up"

  # The app: the drag of A, cut short by the drop, decided nothing (A is cancelled, and B and C
  # only tap where they lift); a new swipe right still dismisses the first card.
  before=$(grep -c '^decision:' /tmp/app.log || true)
  kiosk_check "the drop decided nothing in the app" test "$before" = 0
  {
    frame 0 200 200 240
    echo "E: 0.000000 0001 014a 1"
    syn
    i=1
    while [ "$i" -le 10 ]; do
      printf 'E: 0.%06d 0003 0035 %d\nE: 0.%06d 0000 0000 0\n' $((i * 15000)) $((200 + i * 40)) $((i * 15000))
      i=$((i + 1))
    done
    echo "E: 0.160000 0003 0039 -1"
    echo "E: 0.160000 0001 014a 0"
    echo "E: 0.160000 0000 0000 0"
  } >/tmp/swipe.evemu
  evemu-play "$dev" </tmp/swipe.evemu
  one_more() { [ "$(grep -c '^decision:' /tmp/app.log)" -gt "$before" ]; }
  kiosk_check "the app still decides: a swipe right after the drop" kiosk_wait_until 10 one_more
  grep '^decision:' /tmp/app.log
  kiosk_check "and it is the first card, right" \
    kiosk_matches "$(grep '^decision:' /tmp/app.log | tail -n1)" "decision: swipedRight card 'willkommen' *"
  kill "$app"
  wait "$app"
  cp /tmp/app.log "$KIOSK_OUT/"
}

# frame SLOT TRACKING_ID X Y: the slot's finger lands (no SYN_REPORT).
frame() {
  printf 'E: 0.000000 0003 002f %d\nE: 0.000000 0003 0039 %d\nE: 0.000000 0003 0035 %d\nE: 0.000000 0003 0036 %d\n' "$@"
}

syn() { echo "E: 0.000000 0000 0000 0"; }

# 1000 frames: A (slot 0) moves right to x 500 while B (slot 1) moves left to x 300; A lifts;
# C (slot 2) lands at (400,240); 200 frames: B moves up to y 150. All at once (time 0).
flood() {
  awk 'BEGIN {
    for (k = 1; k <= 1000; k++) {
      printf "E: 0.000000 0003 002f 0\nE: 0.000000 0003 0035 %d\n", 100 + int(k * 400 / 1000)
      printf "E: 0.000000 0003 002f 1\nE: 0.000000 0003 0035 %d\nE: 0.000000 0000 0000 0\n", 700 - int(k * 400 / 1000)
    }
    printf "E: 0.000000 0003 002f 0\nE: 0.000000 0003 0039 -1\nE: 0.000000 0000 0000 0\n"
    printf "E: 0.000000 0003 002f 2\nE: 0.000000 0003 0039 102\n"
    printf "E: 0.000000 0003 0035 400\nE: 0.000000 0003 0036 240\nE: 0.000000 0000 0000 0\n"
    for (k = 1; k <= 200; k++) {
      printf "E: 0.000000 0003 002f 1\nE: 0.000000 0003 0036 %d\nE: 0.000000 0000 0000 0\n", 400 - int(k * 250 / 200)
    }
  }'
}
