# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# DRM connector hotplug with the app running: QEMU cannot unplug a virtio-gpu
# output, but the kernel's own interface forces a connector's state — writing off / detect
# to /sys/class/drm/cardN-CONNECTOR/status. Whether that write alone sends a uevent is
# checked (the figures say); when it does not, a `change` written to the card's uevent file
# sends one, which the app's HotplugMonitor takes as a hotplug (UEvent.isDrmHotplug).
#   first frame    the deck's first card                                     expected-first
#   status off     the app logs the disconnect, stops flipping
#   status detect  the app logs "is back", re-modesets the mode
#   swipe 200 pt   a decision, and the screen shows the next card: flips resumed   expected-next
VM_DISPLAY=virtio
VM_TIMEOUT=120

# Waits up to 10 s (of a silent log) for TEXT in the app's log after a status write; if it is not there, sends
# the card a `change` uevent and waits again. Prints how it came ("by itself" / "after a
# change uevent") for the figures; fails when neither brings it.
_hotplug_wait() {
  if app_wait_log "$1" "$2" 10 2>/dev/null; then
    echo "by the status write alone"
    return 0
  fi
  echo change >"/sys/class/drm/$card/uevent"
  app_wait_log "$1" "$2" 30
  echo "after a change uevent on $card"
}

guest() {
  . /share/lib/app.sh
  card=card0
  connector=""
  for c in /sys/class/drm/"$card"-*; do
    if grep -qx connected "$c/status" 2>/dev/null; then connector=${c##*/} && break; fi
  done
  kiosk_check "a connected connector on $card (is: ${connector:-none})" test -n "$connector"
  app_start --deck examples/seed-stack.json --idle-timeout 10m
  app_wait_log 'first frame on screen' 1 60
  app_geometry
  kiosk_mark "hotplug-first-frame $APP_GEOMETRY"
  kiosk_wait_host checked-first 60

  echo off >"/sys/class/drm/$connector/status"
  kiosk_check "the forced connector reads disconnected" grep -qx disconnected "/sys/class/drm/$connector/status"
  how_off=$(_hotplug_wait "was disconnected; waiting for it to come back" 1)
  kiosk_check "the app saw the disconnect ($how_off)" \
    grep -q "display: .* was disconnected; waiting for it to come back" "$APP_LOG"
  echo "drm hotplug: disconnect seen $how_off" >>"$KIOSK_OUT/figures.txt"

  echo detect >"/sys/class/drm/$connector/status"
  kiosk_check "detected again, the connector reads connected" grep -qx connected "/sys/class/drm/$connector/status"
  how_on=$(_hotplug_wait "is back: " 1)
  kiosk_check "the app saw it come back and set the mode again ($how_on)" grep -q "display: .* is back: " "$APP_LOG"
  kiosk_check "no re-modeset error" sh -c "! grep -q 're-modeset of .* failed' '$APP_LOG'"
  echo "drm hotplug: reconnect seen $how_on" >>"$KIOSK_OUT/figures.txt"

  # Flips resume: a swipe after the reconnect is drawn (the host compares the screen).
  app_inject "drag $(app_at 0 0) $(app_at 200 0) 400"
  app_wait_log "decision: swipedRight card 'karte-1'" 1 15
  kiosk_mark hotplug-swiped
  kiosk_wait_host checked-next 30

  app_stop
  kiosk_check "SIGTERM: the app exits with status 0 (is: $APP_STATUS)" test "$APP_STATUS" = 0
  app_figures "drm hotplug"
}

host() {
  . "$VM_DIR/scenarios/lib/app.sh"
  line=$(qmp wait-serial hotplug-first-frame --timeout 90)
  host_app_geometry "$line"
  deck="$REPO_ROOT/examples/seed-stack.json"
  host_render first "$deck"
  host_render next "$deck" --gesture "release 200 0" --at 3000
  host_differ first next
  host_like first --within 10
  touch "$VM_SHARE/checked-first"
  qmp wait-serial hotplug-swiped --timeout 90
  host_like next --within 10
  touch "$VM_SHARE/checked-next"
}
