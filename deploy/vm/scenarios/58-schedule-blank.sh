# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# Opening hours on a real kernel: a deck whose schedule closes at the next minute and opens
# again a minute later ("blank": true). The kiosk switches the connector off (DPMS, read back
# from sysfs) on time and on again at the next window. The guest's zone is UTC.
VM_DISPLAY=virtio
VM_TIMEOUT=200

hhmm() { printf '%02d:%02d' $(($1 / 60)) $(($1 % 60)); }

guest() {
  . /share/lib/app.sh
  now=$(date -u +%H%M)
  h=${now%??}
  m=${now#??}
  t=$((${h#0} * 60 + ${m#0}))
  [ "$t" -lt 1435 ] || { echo "too close to midnight for this scenario"; exit 77; }
  close=$(hhmm $((t + 1)))
  open=$(hhmm $((t + 2)))
  cat >/tmp/deck.json <<DECK
{"id": "hours", "version": 1, "title": "Hours", "layout": "stack",
 "schedule": {"open": [{"from": "00:00", "to": "$close"}, {"from": "$open", "to": "24:00"}],
              "closedText": "Geschlossen", "blank": true},
 "cards": [{"id": "a", "title": "A", "theme": "sky"}]}
DECK
  KioskCards check-deck /tmp/deck.json
  app_start --deck /tmp/deck.json --idle-timeout 10m
  app_wait_log 'first frame on screen' 1 60
  dpms=$(cat /sys/class/drm/card0-Virtual-1/dpms)
  kiosk_check "the panel is on while open (dpms: $dpms)" test "$dpms" = On
  app_wait_log 'schedule: closed — switching the panel off' 1 75
  kiosk_check "closed at $close (is: $(date -u +%H:%M:%S))" test "$(date -u +%H:%M)" = "$close"
  sleep 0.5
  dpms=$(cat /sys/class/drm/card0-Virtual-1/dpms)
  kiosk_check "the connector is off while closed (dpms: $dpms)" test "$dpms" = Off
  app_wait_log 'schedule: open' 1 75
  kiosk_check "open again at $open (is: $(date -u +%H:%M:%S))" test "$(date -u +%H:%M)" = "$open"
  sleep 0.5
  dpms=$(cat /sys/class/drm/card0-Virtual-1/dpms)
  kiosk_check "the connector is on again (dpms: $dpms)" test "$dpms" = On
  app_stop
  kiosk_check "SIGTERM: the app exits with status 0 (is: $APP_STATUS)" test "$APP_STATUS" = 0
}
