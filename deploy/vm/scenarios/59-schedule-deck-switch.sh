# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# A deck per schedule window on a real kernel: the deck's schedule names evening.json from
# the next minute on. A visitor taps through that boundary (injected touches every 2 s); the
# kiosk waits for the visit to end (idle reset 8 s after the last tap) and only then shows
# the evening deck. The guest's zone is UTC.
VM_DISPLAY=virtio
VM_TIMEOUT=200

hhmm() { printf '%02d:%02d' $(($1 / 60)) $(($1 % 60)); }
# Seconds since midnight, UTC.
now_s() { date -u +'%H %M %S' | awk '{ print $1 * 3600 + $2 * 60 + $3 }'; }

guest() {
  . /share/lib/app.sh
  s=$(now_s)
  # The boundary: the next minute, or the one after when this one is half gone (the app
  # must be up with time to spare).
  b=$((s / 60 + 1))
  [ $((s % 60)) -lt 30 ] || b=$((b + 1))
  [ "$b" -lt 1440 ] || { echo "too close to midnight for this scenario"; exit 77; }
  at=$(hhmm "$b")
  cat >/tmp/evening.json <<'DECK'
{"id": "evening", "version": 1, "title": "Abend", "layout": "stack",
 "cards": [{"id": "e", "title": "Guten Abend", "theme": "sky"}]}
DECK
  cat >/tmp/deck.json <<DECK
{"id": "lobby", "version": 1, "title": "Lobby", "layout": "stack",
 "schedule": {"open": [{"from": "00:00", "to": "$at"}, {"from": "$at", "to": "24:00", "deck": "evening.json"}]},
 "cards": [{"id": "a", "title": "A", "theme": "sky"}]}
DECK
  KioskCards check-deck /tmp/deck.json
  app_start --deck /tmp/deck.json --idle-timeout 8s --idle-warning off
  app_wait_log 'first frame on screen' 1 60
  app_geometry
  kiosk_check "the lobby deck first" grep -q "kiosk: deck 'lobby'" "$APP_LOG"
  left=$((b * 60 - $(now_s)))
  [ "$left" -gt 8 ] || { echo "the app came up too close to the boundary ($left s)"; exit 77; }
  sleep $((left - 6))
  # Taps on the empty corner from 6 s before the boundary to about 10 s after it.
  set --
  for _ in 1 2 3 4 5 6 7 8 9; do set -- "$@" "tap $(app_pt 20 20)" "wait 2000"; done
  app_inject "$@"
  app_wait_log 'waiting for the visitor to finish' 1 30
  kiosk_check "at $at the switch waits for the visit" grep -q \
    "schedule: next window shows /tmp/evening.json; waiting for the visitor to finish" "$APP_LOG"
  app_wait_log "schedule: switching to deck 'evening'" 1 40
  late=$(($(now_s) - b * 60))
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
