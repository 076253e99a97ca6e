# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# The usb-tablet as one finger (what the preview's VNC mouse is): the host drags through QMP
# input-send-event and the top card is dismissed — the scanout checked against the renderer,
# the decision in the database.
VM_DISPLAY=virtio
VM_TABLET=1
VM_SOLO=1 # the slow drag must spring back: beside another VM a busy host made it a swipe (seen on 53)

guest() {
  . /share/lib/app.sh
  kiosk_input_device "QEMU USB Tablet" 20 >/dev/null
  app_start --deck examples/onboarding.json --idle-timeout 10m
  app_wait_log 'first frame on screen' 1 60
  app_wait_log "USB Tablet': absolute pointer" 1 20
  app_geometry
  kiosk_mark "tablet-first-frame $APP_GEOMETRY"
  app_wait_log "decision: swipedRight card 'willkommen'" 1 60
  kiosk_mark tablet-swiped
  kiosk_wait_host checked-next 30
  app_stop
  kiosk_check "SIGTERM: the app exits with status 0 (is: $APP_STATUS)" test "$APP_STATUS" = 0
  decisions=$(app_decisions)
  echo "decisions: $decisions"
  kiosk_check "the database holds the swipe" test "$decisions" = "willkommen:swipedRight"
  app_figures "stack tablet"
}

host() {
  . "$VM_DIR/scenarios/lib/app.sh"
  line=$(qmp wait-serial tablet-first-frame --timeout 90)
  host_app_geometry "$line"
  deck="$REPO_ROOT/examples/onboarding.json"
  host_render first "$deck"
  host_render next "$deck" --gesture "release 200 0" --at 3000
  host_differ first next
  host_like first --within 10
  # 200 pt right from the middle of the screen (inside the top card), over 400 ms.
  # shellcheck disable=SC2046  # four numbers, four arguments
  qmp tablet-drag $(awk -v p="$HOST_PANEL" -v s="$HOST_SCALE" \
    'BEGIN { split(p, a, "x"); printf "%d %d %d %d", a[1] / 2, a[2] / 2, a[1] / 2 + 200 * s, a[2] / 2 }') 400
  qmp wait-serial tablet-swiped --timeout 30
  host_like next --within 10
  touch "$VM_SHARE/checked-next"
}
