# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# Faults on virtio: an invalid deck is refused with its problems on the console and exit
# status 2, before the display is touched; the touchscreen unplugged mid-drag (finger still
# down) makes the card spring back, the app keeps running, and a new touchscreen works.
VM_DISPLAY=virtio
VM_SOLO=1 # the slow drag must spring back: beside another VM a busy host made it a swipe (seen on 53)

guest() {
  . /share/lib/app.sh
  printf '\033[44m\033[2J\033[HKioskCards e2e: the console before the app\n' >/dev/tty1

  cat >/tmp/bad-deck.json <<'EOF'
{
  "id": "broken",
  "version": 1,
  "title": "Kaputt",
  "layout": "stack",
  "cards": [
    { "id": "first", "title": "Erste", "color": "#12345" },
    { "id": "second", "subtitle": "Ohne Titel" }
  ]
}
EOF
  status=0
  KioskCards run --deck /tmp/bad-deck.json --data /tmp/data 2>/tmp/bad-deck.err || status=$?
  cat /tmp/bad-deck.err
  cp /tmp/bad-deck.err "$KIOSK_OUT/"
  kiosk_check "an invalid deck: exit status 2 (is: $status)" test "$status" = 2
  kiosk_check "the error gives file, line and field of the bad colour and how to write it" \
    grep -q '/tmp/bad-deck.json:7:[0-9]*: error: cards\[0\].color: .*#RRGGBB' /tmp/bad-deck.err
  kiosk_check "and of the card without a title" \
    grep -q '/tmp/bad-deck.json:8:[0-9]*: error: cards\[1\].title: missing' /tmp/bad-deck.err
  kiosk_check "and says what to do" grep -q 'Fix the problems above' /tmp/bad-deck.err
  kiosk_mark bad-deck-refused
  kiosk_wait_host checked-console 30

  app_start --deck examples/onboarding.json --idle-timeout 10m
  app_wait_log 'first frame on screen' 1 60
  app_geometry
  kiosk_mark "unplug-first-frame $APP_GEOMETRY"
  kiosk_wait_host checked-first 60
  # A tap on the empty corner makes a visitor present, so the attract screen's nudges stop
  # (one under way would offset the card the finger grabs).
  app_inject "tap $(app_pt 20 20)"
  kiosk_mark visitor-here
  kiosk_wait_host checked-home 30

  # A finger drags the top card 150 pt right and stays down; 4 s later (the host checks the
  # card under the finger meanwhile) the device is destroyed with the finger still down.
  kiosk_mark unplug-dragging
  removed=$(app_count " removed")
  app_inject "down 0 $(app_at 0 0)" "move 0 $(app_at 150 0) 300" "wait 4000" unplug
  app_wait_log " removed" "$((removed + 1))" 10
  kiosk_mark unplugged
  kiosk_wait_host checked-back 30
  kiosk_check "the app keeps running" kill -0 "$APP_PID"
  kiosk_check "and took no decision for the tap or the cut-short drag" test "$(app_count 'decision:')" = 0

  # A new touchscreen (another injector: a new uinput device, a new /dev/input/eventN) works.
  touchscreen="'KioskCards injected touchscreen': touchscreen"
  opened=$(app_count "$touchscreen")
  app_inject "drag $(app_at 0 0) $(app_at 200 0) 400"
  kiosk_check "the new touchscreen is opened" test "$(app_count "$touchscreen")" = "$((opened + 1))"
  app_wait_log "decision: swipedRight card 'willkommen'" 1 15
  kiosk_mark replugged-swiped
  kiosk_wait_host checked-next 30

  app_stop
  kiosk_check "SIGTERM: the app exits with status 0 (is: $APP_STATUS)" test "$APP_STATUS" = 0
  decisions=$(app_decisions)
  echo "decisions: $decisions"
  kiosk_check "the database holds the one swipe" test "$decisions" = "willkommen:swipedRight"
  app_figures "stack unplug"
}

host() {
  . "$VM_DIR/scenarios/lib/app.sh"
  qmp wait-serial bad-deck-refused --timeout 90
  # The refused app never took the display: the console is still there.
  qmp expect-region --save "$VM_OUT/console-after-bad-deck.png" 100 200 600 200 '#0000aa' 8
  touch "$VM_SHARE/checked-console"

  line=$(qmp wait-serial unplug-first-frame --timeout 90)
  host_app_geometry "$line"
  deck="$REPO_ROOT/examples/onboarding.json"
  host_render first "$deck"
  host_render dragged "$deck" --gesture "drag 150 0"
  host_render next "$deck" --gesture "release 200 0" --at 3000
  host_differ first dragged
  host_differ first next
  host_like first --within 10
  touch "$VM_SHARE/checked-first"
  qmp wait-serial visitor-here --timeout 60
  host_like first --within 10 --save "$VM_OUT/visitor-here.png"
  touch "$VM_SHARE/checked-home"

  qmp wait-serial unplug-dragging --timeout 60
  # The finger holds the card for 4 s after the injector's 1 s settle and 0.3 s move (once
  # the finger is gone the card moves, so a late match is impossible).
  host_like dragged --within 8
  qmp wait-serial unplugged --timeout 30
  host_like first --within 10 --save "$VM_OUT/sprung-back.png"
  touch "$VM_SHARE/checked-back"
  qmp wait-serial replugged-swiped --timeout 60
  host_like next --within 10
  touch "$VM_SHARE/checked-next"
}
