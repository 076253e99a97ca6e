# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# KioskCards touch-test: a finger put down by the injector at (600, 300) px and moved to
# (650, 320) shows as a dot right under it (screendump), with a trail back to where it came
# down; its line on stdout gives the raw device units and the mapped point; after the lift
# a smaller dot stays. Exits by itself after --seconds.
VM_DISPLAY=virtio
VM_TIMEOUT=120

guest() {
  KioskCards touch-test --seconds 45 >/tmp/touch-test.out 2>/tmp/touch-test.log &
  app=$!
  kiosk_wait_until 60 grep -q 'touch-test: 800x480 px' /tmp/touch-test.log
  KioskCards inject --settle 2000 "down 0 600 300" "move 0 650 320 300" "wait 6000" "up 0" "wait 300" &
  injector=$!
  kiosk_wait_until 30 grep -q 'began' /tmp/touch-test.out
  sleep 1 # the move (300 ms) is done
  kiosk_mark finger-down
  kiosk_wait_host seen-down 60
  wait "$injector"
  kiosk_wait_until 10 grep -q 'ended' /tmp/touch-test.out
  kiosk_mark finger-up
  kiosk_wait_host seen-up 60
  kill -TERM "$app"
  wait "$app"
  cp /tmp/touch-test.out /tmp/touch-test.log "$KIOSK_OUT/"
  cat /tmp/touch-test.out

  scale=$(sed -n 's/.*800x480 px, \([0-9.]*\) px\/pt.*/\1/p' /tmp/touch-test.log)
  began=$(grep ' began ' /tmp/touch-test.out)
  ended=$(grep ' ended ' /tmp/touch-test.out)
  # "touch-test: contact N began raw X,Y → X,Y pt": raw is the injector's device units
  # (600/800 · 32768 - 0.5, rounded: 24576), mapped back to pixels it is where the finger is.
  at() {
    echo "$1" | awk -v s="$scale" -v rx="$2" -v ry="$3" -v px="$4" -v py="$5" '{
      split($6, raw, ","); split($8, pt, ",")
      if (raw[1] < rx - 2 || raw[1] > rx + 2 || raw[2] < ry - 2 || raw[2] > ry + 2) exit 1
      dx = pt[1] * s - px; dy = pt[2] * s - py
      exit !(dx * dx + dy * dy < 1.5 * 1.5)
    }'
  }
  kiosk_check "the touch came down at raw 24576,20480 = (600, 300) px" at "$began" 24576 20480 600 300
  kiosk_check "it ended at raw 26624,21845 = (650, 320) px" at "$ended" 26624 21845 650 320
  kiosk_check "the screen ended by --seconds or TERM with a summary" grep -q 'touch(es)' /tmp/touch-test.out
}

host() {
  qmp wait-serial finger-down --timeout 100
  # The first touch's colour (#ff9f0a) under the finger, the trail between the two points,
  # and the dark page elsewhere.
  qmp expect-color --within 10 --save "$VM_OUT/down.png" 650 320 '#ff9f0a' 40
  qmp expect-color --image "$VM_OUT/down.png" 400 400 '#1c1c1e' 12
  qmp pixel --image "$VM_OUT/down.png" 625 310
  touch "$VM_SHARE/seen-down"
  qmp wait-serial finger-up --timeout 30
  qmp expect-color --within 5 --save "$VM_OUT/up.png" 650 320 '#ff9f0a' 40
  # The ring of a finger that is down (24 pt out) is gone after the lift.
  touch "$VM_SHARE/seen-up"
}
