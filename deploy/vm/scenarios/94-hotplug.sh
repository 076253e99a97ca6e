# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# Hotplug with the app running and no touchscreen at its start: a panel (a uinput clone of the
# Atmel maXTouch 800x480) plugged in later is opened within a second; pulled out in the middle
# of a 300 pt drag, the drag is cancelled — the card springs back (the host compares the
# screen with the resting one) and nothing is decided; plugged in again it works at once (a
# swipe dismisses the first card, so the cancelled drag had not); five more mid-drag
# unplug/replug cycles leave no decision and no crash; and the idle app then uses no CPU.
VM_DISPLAY=virtio
VM_TIMEOUT=120

guest() {
  recording=/testdata/touch/atmel-mxt-800x480-one-finger-fast-taps.evemu
  if [ ! -r "$recording" ]; then
    echo "skip: $recording is missing (the checkout's Tests/Fixtures/touch is not mounted)"
    exit 77
  fi
  KioskCards run --deck examples/onboarding.json 2>/tmp/app.log &
  app=$!
  kiosk_wait_until 60 grep -q 'first frame' /tmp/app.log
  kiosk_check "no touchscreen at the start" grep -q 'no touchscreen found yet' /tmp/app.log

  drag_no_lift >/tmp/drag.evemu
  swipe >/tmp/swipe.evemu
  plug
  kiosk_check "plugged in after the start, opened in $latency s" awk -v s="$latency" 'BEGIN { exit !(s < 1) }'
  worst=$latency

  # Mid-drag unplug: the host looks at the card before, during and after; the watcher shows
  # what the app's input path makes of it.
  KioskCards probe --watch "$dev" >/tmp/watch.out 2>/tmp/watch.log &
  watcher=$!
  kiosk_wait_until 10 grep -q "input: $dev '" /tmp/watch.log
  kiosk_mark "hotplug at-rest"
  kiosk_wait_host looked 30
  evemu-play "$dev" </tmp/drag.evemu
  kiosk_mark "hotplug dragging"
  kiosk_wait_host seen-drag 30
  unplug
  watch_ended() { grep -qE '"phase":"(ended|cancelled)"' /tmp/watch.out; }
  kiosk_wait_until 10 watch_ended || true
  kill "$watcher"
  wait "$watcher" || true
  tail -n 2 /tmp/watch.out
  kiosk_check "the watcher's drag ends cancelled, at 500 pt" \
    kiosk_matches "$(grep '"type":"frame"' /tmp/watch.out | tail -n 1)" '*"x":500.5,"y":240.5,"phase":"cancelled"*'
  kiosk_check "the watcher reports the gesture as cancelled" \
    kiosk_matches "$(tail -n 1 /tmp/watch.out)" '*"type":"gesture","kind":"cancelled"*'
  kiosk_mark "hotplug unplugged"
  kiosk_wait_host sprung-back 30
  kiosk_check "the cancelled drag decided nothing" test "$(decisions)" = 0

  plug
  worst=$(awk -v a="$worst" -v b="$latency" 'BEGIN { print (b > a ? b : a) }')
  evemu-play "$dev" </tmp/swipe.evemu
  kiosk_wait_until 10 test_decisions 1 || true
  kiosk_check "replugged, a swipe dismisses the first card" \
    kiosk_matches "$(grep '^decision:' /tmp/app.log)" "decision: swipedRight card 'willkommen' *"

  i=1
  while [ "$i" -le 5 ]; do
    unplug
    plug
    worst=$(awk -v a="$worst" -v b="$latency" 'BEGIN { print (b > a ? b : a) }')
    evemu-play "$dev" </tmp/drag.evemu
    i=$((i + 1))
  done
  unplug
  kiosk_check "five more mid-drag unplugs decided nothing" test "$(decisions)" = 1
  echo "hotplug: 7 plug-ins, slowest opened $worst s after its node appeared" | tee -a "$KIOSK_OUT/figures.txt"
  kiosk_check "every plug-in opened within a second" awk -v s="$worst" 'BEGIN { exit !(s < 1) }'
  kiosk_check "the app survived" kill -0 "$app"

  # Idle: no device, and once the last card has sprung back nothing moves on screen. The CPU
  # time (utime + stime, 1/100 s ticks) must go flat: first a quiet second (the spring-back
  # animation ends within one), then at most 0.1 s of CPU over 3 s.
  cpu() { awk '{ print $14 + $15 }' "/proc/$app/stat"; }
  settled=0
  for _ in 1 2 3 4 5; do
    c0=$(cpu)
    sleep 1
    if [ $(($(cpu) - c0)) -lt 3 ]; then
      settled=1
      break
    fi
  done
  c0=$(cpu)
  sleep 3
  ticks=$(($(cpu) - c0))
  echo "idle: $ticks CPU ticks (1/100 s) in 3 s after the hotplug cycles" | tee -a "$KIOSK_OUT/figures.txt"
  kiosk_check "the app goes quiet after the last spring-back" test "$settled" = 1
  kiosk_check "no busy loop: under 0.1 s of CPU in 3 s idle" test "$ticks" -lt 10
  kill "$app"
  wait "$app"
  cp /tmp/app.log "$KIOSK_OUT/"
}

host() {
  # The card's lower middle, clear of the title and subtitle text.
  region="340 300 120 60"
  qmp wait-serial 'KIOSK-MARK: hotplug at-rest' --timeout 90
  # shellcheck disable=SC2086  # the region is four words
  before=$(qmp region-avg $region --save at-rest.png)
  echo "at rest: $before"
  touch "$VM_SHARE/looked"
  qmp wait-serial 'KIOSK-MARK: hotplug dragging' --timeout 30
  # The card follows the finger: the region leaves its colour at rest (else the spring-back
  # check below would pass on a card that never moved).
  # shellcheck disable=SC2086
  qmp expect-region-away --within 5 --save dragging.png $region "$before" 40
  touch "$VM_SHARE/seen-drag"
  qmp wait-serial 'KIOSK-MARK: hotplug unplugged' --timeout 30
  # shellcheck disable=SC2086
  qmp expect-region --within 5 --save sprung-back.png $region "$before" 6
  touch "$VM_SHARE/sprung-back"
}

# Creates the clone and waits until the app has opened it; sets dev, device_pid and latency
# (seconds from its node appearing to the app's line about it, polled every 10 ms).
plug() {
  rm -f /tmp/device.out
  evemu-device /testdata/touch/atmel-mxt-800x480-one-finger-fast-taps.evemu >/tmp/device.out 2>&1 &
  device_pid=$!
  n=0
  until grep -q '/dev/input/event' /tmp/device.out 2>/dev/null; do
    n=$((n + 1))
    [ "$n" -lt 1000 ] || return 1
    usleep 10000
  done
  dev=$(grep -o '/dev/input/event[0-9]*' /tmp/device.out | head -n1)
  kiosk_wait_for "$dev" 5
  t0=$(cut -d' ' -f1 /proc/uptime)
  n=0
  until [ "$(opens)" -gt "$plugs" ]; do
    n=$((n + 1))
    [ "$n" -lt 500 ] || return 1
    usleep 10000
  done
  t1=$(cut -d' ' -f1 /proc/uptime)
  plugs=$((plugs + 1))
  latency=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  echo "plugged in: $dev, opened after $latency s"
}
plugs=0
opens() { grep -c "input: /dev/input/event[0-9]* 'Atmel maXTouch Touchscreen'" /tmp/app.log || true; }

# Pulls the clone out and waits for the app to close it.
unplug() {
  removed=$(grep -c 'input: /dev/input/event[0-9]* removed' /tmp/app.log || true)
  kill "$device_pid"
  wait "$device_pid" 2>/dev/null || true
  more_removed() { [ "$(grep -c 'input: /dev/input/event[0-9]* removed' /tmp/app.log)" -gt "$removed" ]; }
  kiosk_wait_until 5 more_removed
}

decisions() { grep -c '^decision:' /tmp/app.log || true; }
test_decisions() { [ "$(decisions)" -ge "$1" ]; }

# One finger down at (200,240) and 300 pt to the right over 150 ms, not lifted.
drag_no_lift() {
  printf 'E: 0.000000 0003 002f 0\nE: 0.000000 0003 0039 500\nE: 0.000000 0003 0035 200\nE: 0.000000 0003 0036 240\n'
  printf 'E: 0.000000 0001 014a 1\nE: 0.000000 0000 0000 0\n'
  i=1
  while [ "$i" -le 10 ]; do
    printf 'E: 0.%06d 0003 0035 %d\nE: 0.%06d 0000 0000 0\n' $((i * 15000)) $((200 + i * 30)) $((i * 15000))
    i=$((i + 1))
  done
}

# The same, lifted.
swipe() {
  drag_no_lift
  printf 'E: 0.160000 0003 0039 -1\nE: 0.160000 0001 014a 0\nE: 0.160000 0000 0000 0\n'
}
