# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# The list's iOS manners on virtio, examples/seed-list.json ("Color Cards"):
#   partial swipe  the first row 100 pt left, slowly: it stays open with its Delete button,
#                  nothing is deleted                                        expected-partial
#   tap Delete     the row goes (a `deleted` decision)                       expected-deleted
#   seven swipes   every other row swiped fully left: the empty list shows the deck's
#                  emptyText ("No cards yet — tap + to add one")            expected-empty
# Each screen checked against the app's own headless renderer (host_render); the empty one
# also against a render with another emptyText, so the text itself is what matches.
VM_DISPLAY=virtio
VM_TIMEOUT=150
LIST_DECK=examples/seed-list.json
# The first row's middle, in points (52: the 56 pt title bar, the 2 pt inset, half of 72 pt).
ROW0_Y=94
# How far the partial swipe goes: past ListLayout.revealThreshold (40 pt), well short of the
# full swipe's deleteThreshold (half the row).
PARTIAL=100

guest() {
  . /share/lib/app.sh
  app_start --deck "$LIST_DECK" --idle-timeout 10m
  app_wait_log 'first frame on screen' 1 60
  app_geometry
  kiosk_mark "list-first-frame $APP_GEOMETRY"
  kiosk_wait_host checked-first 60
  w=$(app_width_pt)
  start=$(awk -v w="$w" 'BEGIN { print w * 0.8 }')
  left=$(awk -v w="$w" 'BEGIN { print w * 0.1 }')

  # 100 pt in 1.5 s (slow: no flick), released where it stopped.
  app_inject "drag $(app_pt "$start" "$ROW0_Y") $(app_pt "$(awk -v s="$start" -v d="$PARTIAL" 'BEGIN { print s - d }')" "$ROW0_Y") 1500"
  sleep 2
  kiosk_check "the partial swipe deleted nothing" test "$(app_count 'decision: deleted')" = 0
  kiosk_mark list-partial
  kiosk_wait_host checked-partial 60
  kiosk_check "still nothing deleted while it stays open" test "$(app_count 'decision: deleted')" = 0

  # The Delete button: the row's right end (ListLayout.deleteButtonWidth 80 pt, inset 10 pt).
  app_inject "tap $(app_pt "$(awk -v w="$w" 'BEGIN { print w - 10 - 40 }')" "$ROW0_Y")"
  app_wait_log "decision: deleted card 'card-1'" 1 20
  kiosk_mark list-deleted
  kiosk_wait_host checked-deleted 60

  # The seven others, one full swipe each (80 % of the width), the next after the last is gone.
  for n in 2 3 4 5 6 7 8; do
    app_inject "drag $(app_pt "$(awk -v w="$w" 'BEGIN { print w * 0.9 }')" "$ROW0_Y") $(app_pt "$left" "$ROW0_Y") 300"
    app_wait_log "decision: deleted card 'card-$n'" 1 20
    kiosk_mark "list-deleted-$n"
    sleep 1
  done
  kiosk_mark list-empty
  kiosk_wait_host checked-empty 60

  app_stop
  kiosk_check "SIGTERM: the app exits with status 0 (is: $APP_STATUS)" test "$APP_STATUS" = 0
  decisions=$(app_decisions)
  echo "decisions: $decisions"
  kiosk_check "the database holds the eight deletions in order" test "$decisions" = \
    "card-1:deleted card-2:deleted card-3:deleted card-4:deleted card-5:deleted card-6:deleted card-7:deleted card-8:deleted"
  app_figures "list delete/empty"
}

host() {
  . "$VM_DIR/scenarios/lib/app.sh"
  line=$(qmp wait-serial list-first-frame --timeout 120)
  host_app_geometry "$line"
  deck="$REPO_ROOT/$LIST_DECK"
  width_pt=$(awk -v p="$HOST_PANEL" -v s="$HOST_SCALE" 'BEGIN { split(p, a, "x"); printf "%.1f", a[1] / s }')
  full=$(awk -v w="$width_pt" 'BEGIN { print w * 0.8 }')
  host_deck_without_first "$deck" 7 "$VM_OUT/deck-last.json"
  python3 -c 'import json, sys
deck = json.load(open(sys.argv[1]))
deck["emptyText"] = "Something else entirely"
json.dump(deck, open(sys.argv[2], "w"), ensure_ascii=False)' "$VM_OUT/deck-last.json" "$VM_OUT/deck-last-other-text.json"
  host_render first "$deck"
  host_render partial "$deck" --gesture "release -$PARTIAL 0" --at 3000
  host_render deleted "$deck" --gesture "release -$full 0" --at 3000
  host_render empty "$VM_OUT/deck-last.json" --gesture "release -$full 0" --at 3000
  host_render empty-other "$VM_OUT/deck-last-other-text.json" --gesture "release -$full 0" --at 3000
  host_differ first partial
  host_differ partial deleted
  host_differ deleted empty
  # The empty text is light grey on grey: its 16 px cells differ by about 20, short of
  # host_differ's 40; a screen within host_like's ±10 of one and of the other cannot exist
  # once they differ by more than 20, so that is the bound that makes the check able to fail.
  python3 "$VM_DIR/scenarios/lib/screen.py" differ "$VM_OUT/expected-empty.png" "$VM_OUT/expected-empty-other.png" \
    --rotation "$HOST_ROTATION" --min 20
  host_like first --within 10
  touch "$VM_SHARE/checked-first"

  qmp wait-serial list-partial --timeout 90
  host_like partial --within 10
  touch "$VM_SHARE/checked-partial"

  qmp wait-serial list-deleted --timeout 90
  host_like deleted --within 10
  touch "$VM_SHARE/checked-deleted"

  qmp wait-serial list-empty --timeout 180
  host_like empty --within 10
  touch "$VM_SHARE/checked-empty"
}
