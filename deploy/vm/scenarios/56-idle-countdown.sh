# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# The inactivity warning on a real panel: a tap starts a visit, 6 s later the countdown dims
# the screen (scanout checked), a tap extends the visit (the countdown goes, no reset, no
# decision), and left alone the visit then ends.
VM_DISPLAY=virtio
VM_TABLET=1
VM_TIMEOUT=120

guest() {
  . /share/lib/app.sh
  kiosk_input_device "QEMU USB Tablet" 20 >/dev/null
  app_start --deck examples/seed-stack.json --idle-timeout 16s --idle-warning 10s
  app_wait_log 'first frame on screen' 1 60
  app_wait_log "USB Tablet': absolute pointer" 1 20
  app_geometry
  kiosk_mark "countdown-first-frame $APP_GEOMETRY"
  app_wait_log 'countdown shown' 1 40
  kiosk_check "no reset before the countdown" test "$(app_count 'resetting for the next visitor')" = 0
  kiosk_mark countdown-shown
  app_wait_log 'countdown extended by a touch or key (1 time this visit)' 1 30
  kiosk_check "the extending tap reset nothing" test "$(app_count 'resetting for the next visitor')" = 0
  kiosk_mark countdown-extended
  kiosk_wait_host checked-extended 30
  app_wait_log 'countdown shown' 2 30
  app_wait_log 'resetting for the next visitor' 1 30
  app_stop
  kiosk_check "SIGTERM: the app exits with status 0 (is: $APP_STATUS)" test "$APP_STATUS" = 0
  kiosk_check "no decision was recorded" test -z "$(app_decisions)"
}

host() {
  . "$VM_DIR/scenarios/lib/app.sh"
  line=$(qmp wait-serial countdown-first-frame --timeout 90)
  host_app_geometry "$line"
  # The middle of the screen (the top card) and a point 250 pt left of it (the background,
  # which the countdown dims).
  cx=$(awk -v p="$HOST_PANEL" 'BEGIN { split(p, a, "x"); printf "%d", a[1] / 2 }')
  cy=$(awk -v p="$HOST_PANEL" 'BEGIN { split(p, a, "x"); printf "%d", a[2] / 2 }')
  bx=$(awk -v c="$cx" -v s="$HOST_SCALE" 'BEGIN { printf "%d", c - 250 * s }')
  # The red channel of the background point, 0-255 (qmp.py pixel prints #rrggbb).
  brightness() {
    _h=$(qmp pixel "$bx" "$cy")
    _h=${_h#*#}
    printf '%d' "0x${_h%"${_h#??}"}"
  }
  before=$(brightness)
  echo "background red channel before: $before"
  qmp tablet-tap "$cx" "$cy"
  qmp wait-serial countdown-shown --timeout 40
  sleep 0.5
  dimmed=$(brightness)
  echo "background red channel under the countdown: $dimmed"
  [ "$dimmed" -lt $((before * 3 / 4)) ] || { echo "FAIL: the countdown did not dim the screen"; return 1; }
  qmp screendump "$VM_OUT/countdown.png"
  qmp tablet-tap "$cx" "$cy"
  qmp wait-serial countdown-extended --timeout 20
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    after=$(brightness)
    [ "$after" -ge $((before - 8)) ] && break
    sleep 0.3
  done
  echo "background red channel after the extending tap: $after"
  [ "$after" -ge $((before - 8)) ] || { echo "FAIL: the countdown stayed after the tap"; return 1; }
  touch "$VM_SHARE/checked-extended"
}
