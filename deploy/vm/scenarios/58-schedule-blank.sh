# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# Opening hours on a real kernel: a deck whose schedule closes at 22:00 and opens again at 22:01
# ("blank": true). The kiosk switches the connector off (DPMS, read back from sysfs) on time and
# on again at the next window. The guest's zone is UTC. No real minute is waited for: the
# guest's wall clock starts at 21:57:00 and, while the kiosk runs, is set forward to 3 s before
# each boundary (`date -s`, a step as NTP's first one after boot); the kiosk must notice each
# step at once (a timerfd cancelled on a clock set) and still switch on the minute.
VM_DISPLAY=virtio
VM_TIMEOUT=90

# Sets the guest's wall clock to TIME (hh:mm:ss, UTC) today.
set_clock() { date -u -s "$(date -u +%Y-%m-%d) $1" >/dev/null; }

guest() {
  . /share/lib/app.sh
  set_clock 21:57:00
  cat >/tmp/deck.json <<'DECK'
{"id": "hours", "version": 1, "title": "Hours", "layout": "stack",
 "schedule": {"open": [{"from": "00:00", "to": "22:00"}, {"from": "22:01", "to": "24:00"}],
              "closedText": "Geschlossen", "blank": true},
 "cards": [{"id": "a", "title": "A", "theme": "sky"}]}
DECK
  KioskCards check-deck /tmp/deck.json
  app_start --deck /tmp/deck.json --idle-timeout 10m
  app_wait_log 'first frame on screen' 1 60
  dpms=$(cat /sys/class/drm/card0-Virtual-1/dpms)
  kiosk_check "the panel is on while open (dpms: $dpms)" test "$dpms" = On
  set_clock 21:59:57
  app_wait_log 'clock: the wall clock was set' 1 30
  kiosk_check "the kiosk saw the clock set forward: $(grep -m1 'clock: the wall clock' "$APP_LOG")" \
    grep -q 'clock: the wall clock was set (+' "$APP_LOG"
  app_wait_log 'schedule: closed — switching the panel off' 1 30
  kiosk_check "closed at 22:00 (is: $(date -u +%H:%M:%S))" test "$(date -u +%H:%M)" = 22:00
  sleep 0.5
  dpms=$(cat /sys/class/drm/card0-Virtual-1/dpms)
  kiosk_check "the connector is off while closed (dpms: $dpms)" test "$dpms" = Off
  set_clock 22:00:57
  app_wait_log 'clock: the wall clock was set' 2 30
  app_wait_log 'schedule: open' 1 30
  kiosk_check "open again at 22:01 (is: $(date -u +%H:%M:%S))" test "$(date -u +%H:%M)" = 22:01
  sleep 0.5
  dpms=$(cat /sys/class/drm/card0-Virtual-1/dpms)
  kiosk_check "the connector is on again (dpms: $dpms)" test "$dpms" = On
  app_stop
  kiosk_check "SIGTERM: the app exits with status 0 (is: $APP_STATUS)" test "$APP_STATUS" = 0
}
