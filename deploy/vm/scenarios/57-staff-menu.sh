# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# The staff menu on a real panel: a PIN set with `set-pin`, the hidden gesture (three taps in
# the top-left corner, the third held 3 s) through the usb-tablet opens the PIN pad (scanout
# checked), a wrong PIN is refused, the right one opens the menu (scanout checked); its
# Touch-Test draws a marker under a finger (scanout checked); nothing reaches the deck as a
# decision.
VM_DISPLAY=virtio
VM_TABLET=1
VM_TIMEOUT=120

guest() {
  . /share/lib/app.sh
  kiosk_input_device "QEMU USB Tablet" 20 >/dev/null
  printf '246824\n' | KioskCards set-pin --config /tmp/kiosk.conf
  kiosk_check "set-pin stored a yescrypt hash" grep -q "^staff-pin-hash = [$]y[$]" /tmp/kiosk.conf
  kiosk_check "the PIN itself is not in the config" sh -c '! grep -q 246824 /tmp/kiosk.conf'
  kiosk_check "the config is readable by its owner only (no group kiosk here)" \
    test "$(stat -c %a /tmp/kiosk.conf)" = 600
  app_start --config /tmp/kiosk.conf --deck examples/seed-stack.json --idle-timeout 10m
  app_wait_log 'first frame on screen' 1 60
  app_wait_log "USB Tablet': absolute pointer" 1 20
  app_geometry
  kiosk_mark "staff-first-frame $APP_GEOMETRY"
  app_wait_log 'staff: hidden gesture made, showing the PIN pad' 1 40
  kiosk_mark staff-pin-pad
  app_wait_log 'staff: wrong PIN (2 more before a 60 s lock)' 1 40
  kiosk_mark staff-wrong
  app_wait_log 'staff: PIN accepted, menu open' 1 40
  kiosk_mark staff-menu
  kiosk_wait_host checked-menu 30
  app_wait_log 'staff: Touch test' 1 30
  app_wait_log 'staff: touch test, finger' 1 30
  kiosk_mark staff-touch-test
  kiosk_wait_host checked-touch-test 30
  app_stop
  kiosk_check "SIGTERM: the app exits with status 0 (is: $APP_STATUS)" test "$APP_STATUS" = 0
  kiosk_check "no decision was recorded" test -z "$(app_decisions 2>/dev/null)"
}

host() {
  . "$VM_DIR/scenarios/lib/app.sh"
  line=$(qmp wait-serial staff-first-frame --timeout 90)
  host_app_geometry "$line"
  # Logical points → pixels; the PIN pad's layout is StaffMenu.layout's.
  px() { awk -v v="$1" -v s="$HOST_SCALE" 'BEGIN { printf "%d", v * s }'; }
  wpt=$(awk -v p="$HOST_PANEL" -v s="$HOST_SCALE" 'BEGIN { split(p, a, "x"); printf "%.3f", a[1] / s }')
  hpt=$(awk -v p="$HOST_PANEL" -v s="$HOST_SCALE" 'BEGIN { split(p, a, "x"); printf "%.3f", a[2] / s }')
  key() { # ROW COL -> "X Y" pixels of the key's centre
    awk -v w="$wpt" -v h="$hpt" -v r="$1" -v c="$2" -v s="$HOST_SCALE" 'BEGIN {
      k = (h - 160) / 4.4; if (k > 90) k = 90
      left = (w - 3 * k - 24) / 2
      printf "%d %d", (left + c * (k + 12) + k / 2) * s, (130 + r * (k + 12) + k / 2) * s }'
  }
  # shellcheck disable=SC2046  # "X Y": two arguments
  tap_key() { qmp tablet-tap $(key "$1" "$2"); sleep 0.3; }
  red() {
    _h=$(qmp pixel "$1" "$2")
    _h=${_h#*#}
    printf '%d' "0x${_h%"${_h#??}"}"
  }
  c=$(px 20)
  qmp tablet-tap "$c" "$c"
  sleep 0.3
  qmp tablet-tap "$c" "$c"
  sleep 0.3
  qmp tablet-down "$c" "$c"
  sleep 3.6
  qmp tablet-up
  qmp wait-serial staff-pin-pad --timeout 20
  sleep 0.5
  qmp screendump "$VM_OUT/pin-pad.png"
  # 30 pt left of the '5' key's centre: the key, beside its white digit.
  # shellcheck disable=SC2046  # "X Y": two words
  set -- $(key 1 1)
  k5=$(red "$(($1 - $(px 30)))" "$2")
  echo "red channel of the '5' key: $k5 (the pad's keys are #3A3A3C)"
  if [ "$k5" -lt 40 ] || [ "$k5" -gt 80 ]; then
    echo "FAIL: no PIN pad on screen"
    return 1
  fi
  # Wrong: 1 1 1 1 OK.
  for _ in 1 2 3 4; do tap_key 0 0; done
  tap_key 3 2
  qmp wait-serial staff-wrong --timeout 20
  # Right: 2 4 6 8 2 4 OK (set-pin takes 6 to 12 digits).
  tap_key 0 1
  tap_key 1 0
  tap_key 1 2
  tap_key 2 1
  tap_key 0 1
  tap_key 1 0
  tap_key 3 2
  qmp wait-serial staff-menu --timeout 20
  sleep 0.5
  mx=$(px "$(awk -v w="$wpt" 'BEGIN { printf "%.1f", w - 320 }')")
  my=$(px 40)
  m=$(red "$mx" "$my")
  echo "red channel of the first menu action: $m (#3A3A3C)"
  if [ "$m" -lt 40 ] || [ "$m" -gt 80 ]; then
    echo "FAIL: no menu on screen"
    return 1
  fi
  qmp screendump "$VM_OUT/menu.png"
  touch "$VM_SHARE/checked-menu"
  # The fifth action (Touch-Test): StaffMenu.layout's buttons are 64 pt apart from y 30.
  qmp tablet-tap "$(px "$(awk -v w="$wpt" 'BEGIN { printf "%.1f", w - 180 }')")" "$(px 312)"
  sleep 0.5
  # A finger in the touch test at (200, 300) pt: a marker (the keys' #3A3A3C) is drawn under it.
  qmp tablet-down "$(px 200)" "$(px 300)"
  qmp wait-serial staff-touch-test --timeout 20
  sleep 0.5
  f=$(red "$(px 200)" "$(px 322)")
  qmp tablet-up
  echo "red channel 22 pt below the finger: $f (#3A3A3C)"
  qmp screendump "$VM_OUT/touch-test.png"
  if [ "$f" -lt 40 ] || [ "$f" -gt 80 ]; then
    echo "FAIL: no finger marker in the touch test"
    return 1
  fi
  touch "$VM_SHARE/checked-touch-test"
}
