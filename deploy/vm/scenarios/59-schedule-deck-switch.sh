# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# A deck per schedule window on a real kernel: the deck's schedule names evening.json from
# 18:00 on. A visitor taps through that boundary (injected touches every 2 s); the kiosk waits
# for the visit to end (idle reset 8 s after the last tap) and only then shows the evening
# deck. The guest's zone is UTC. No real minute is waited for: the guest's wall clock starts at
# 17:57:00 and, once the kiosk is up, is set forward to 17:59:53 (`date -s`, a step as NTP's
# first one after boot), which the kiosk must notice at once.
VM_DISPLAY=virtio
VM_TIMEOUT=90

# Sets the guest's wall clock to TIME (hh:mm:ss, UTC) today.
set_clock() { date -u -s "$(date -u +%Y-%m-%d) $1" >/dev/null; }
# Seconds since midnight, UTC.
now_s() { date -u +'%H %M %S' | awk '{ print $1 * 3600 + $2 * 60 + $3 }'; }

guest() {
  . /share/lib/app.sh
  set_clock 17:57:00
  b=$((18 * 3600))
  cat >/tmp/evening.json <<'DECK'
{"id": "evening", "version": 1, "title": "Abend", "layout": "stack",
 "cards": [{"id": "e", "title": "Guten Abend", "theme": "sky"}]}
DECK
  cat >/tmp/deck.json <<'DECK'
{"id": "lobby", "version": 1, "title": "Lobby", "layout": "stack",
 "schedule": {"open": [{"from": "00:00", "to": "18:00"}, {"from": "18:00", "to": "24:00", "deck": "evening.json"}]},
 "cards": [{"id": "a", "title": "A", "theme": "sky"}]}
DECK
  KioskCards check-deck /tmp/deck.json
  app_start --deck /tmp/deck.json --idle-timeout 8s --idle-warning off
  app_wait_log 'first frame on screen' 1 60
  app_geometry
  kiosk_check "the lobby deck first" grep -q "kiosk: deck 'lobby'" "$APP_LOG"
  set_clock 17:59:53
  app_wait_log 'clock: the wall clock was set' 1 30
  kiosk_check "the kiosk saw the clock set forward: $(grep -m1 'clock: the wall clock' "$APP_LOG")" \
    grep -q 'clock: the wall clock was set (+' "$APP_LOG"
  # Taps on the empty corner from ~6 s before the boundary to about 10 s after it.
  set --
  for _ in 1 2 3 4 5 6 7 8 9; do set -- "$@" "tap $(app_pt 20 20)" "wait 2000"; done
  app_inject "$@"
  app_wait_log 'waiting for the visitor to finish' 1 30
  kiosk_check "at 18:00 the switch waits for the visit" grep -q \
    "schedule: next window shows /tmp/evening.json; waiting for the visitor to finish" "$APP_LOG"
  app_wait_log "schedule: switching to deck 'evening'" 1 40
  late=$(($(now_s) - b))
  kiosk_check "the switch came after the visit ($late s after the boundary, the taps went on ~10 s)" \
    test "$late" -ge 10
  reset=$(grep -n 'session: idle, resetting' "$APP_LOG" | head -1 | cut -d: -f1)
  switch=$(grep -n "schedule: switching to deck 'evening'" "$APP_LOG" | head -1 | cut -d: -f1)
  kiosk_check "the visit's idle reset (line $reset) came before the switch (line $switch)" \
    test "${reset:-999999}" -lt "${switch:-0}"
  kiosk_check "no switch before the visit ended" sh -c \
    "head -n ${reset:-0} '$APP_LOG' | grep -c \"switching to deck 'evening'\" | grep -qx 0"
  app_stop
  kiosk_check "SIGTERM: the app exits with status 0 (is: $APP_STATUS)" test "$APP_STATUS" = 0
}
