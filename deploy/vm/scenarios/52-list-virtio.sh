# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# The list layout ("Color Cards", examples/seed-list.json) on virtio: the first row swiped
# left is deleted (the rows below move up, a `deleted` decision), a tap on a row opens its
# detail page in the row's theme colour (an `opened` decision), the back button returns to
# the list — the scanout checked against the app's own headless renderer.
VM_DISPLAY=virtio
LIST_DECK=examples/seed-list.json
# Where the first row's middle is, in points: ListLayout's 56 pt title bar, then the row's
# 2 pt inset and half its 72 pt height (ListLayout.titleBarHeight, insetVertical, rowHeight).
ROW0_Y=94
# The middle of the title bar's back button (ListLayout.backButton: 8, 6, 88 x 44 pt).
BACK_X=52 BACK_Y=28

guest() {
  . /share/lib/app.sh
  app_start --deck "$LIST_DECK" --idle-timeout 10m
  app_wait_log 'first frame on screen' 1 60
  app_geometry
  kiosk_mark "list-first-frame $APP_GEOMETRY"
  kiosk_wait_host checked-first 60
  middle=$(awk -v w="$(app_width_pt)" 'BEGIN { print w / 2 }')
  right=$(awk -v w="$(app_width_pt)" 'BEGIN { print w * 0.9 }')
  left=$(awk -v w="$(app_width_pt)" 'BEGIN { print w * 0.1 }')

  # Swiped left over 80 % of the width (a full swipe: past half the row deletes at once;
  # a shorter one only opens the row's Delete button): Bubblegum goes.
  app_inject "drag $(app_pt "$right" "$ROW0_Y") $(app_pt "$left" "$ROW0_Y") 300"
  app_wait_log "decision: deleted card 'card-1'" 1 15
  kiosk_mark list-deleted
  kiosk_wait_host checked-deleted 30

  # A tap on the new first row: Buttercup's page.
  app_inject "tap $(app_pt "$middle" "$ROW0_Y")"
  app_wait_log "decision: opened card 'card-2'" 1 15
  kiosk_mark list-opened
  kiosk_wait_host checked-detail 30

  app_inject "tap $(app_pt "$BACK_X" "$BACK_Y")"
  kiosk_mark list-back
  kiosk_wait_host checked-back 30

  app_stop
  kiosk_check "SIGTERM: the app exits with status 0 (is: $APP_STATUS)" test "$APP_STATUS" = 0
  decisions=$(app_decisions)
  echo "decisions: $decisions"
  kiosk_check "the database holds the deletion and the opening" test "$decisions" = \
    "card-1:deleted card-2:opened"
  app_figures "list virtio"
}

host() {
  . "$VM_DIR/scenarios/lib/app.sh"
  line=$(qmp wait-serial list-first-frame --timeout 90)
  host_app_geometry "$line"
  deck="$REPO_ROOT/$LIST_DECK"
  host_deck_without_first "$deck" 1 "$VM_OUT/deck-minus-1.json"
  host_render first "$deck"
  width_pt=$(awk -v p="$HOST_PANEL" -v s="$HOST_SCALE" 'BEGIN { split(p, a, "x"); printf "%.1f", a[1] / s }')
  host_render deleted "$deck" --gesture "release -$(awk -v w="$width_pt" 'BEGIN { print w * 0.8 }') 0" --at 3000
  host_render detail "$VM_OUT/deck-minus-1.json" --gesture "tap $(awk -v w="$width_pt" 'BEGIN { print w / 2 }') $ROW0_Y" --at 3000
  host_differ first deleted
  host_differ deleted detail
  host_like first --within 10
  touch "$VM_SHARE/checked-first"

  qmp wait-serial list-deleted --timeout 60
  host_like deleted --within 10
  touch "$VM_SHARE/checked-deleted"

  qmp wait-serial list-opened --timeout 60
  host_like detail --within 10
  # Most of the page is the card's theme colour (Theme.buttercup.mainColor), taken from the
  # source the renderer uses: the lower half of the screen, below the texts.
  colour=$(sed -n 's/.*case \.buttercup: Color(rgb: 0x\([0-9A-Fa-f]\{6\}\)).*/#\1/p' \
    "$REPO_ROOT/Sources/CardModel/Core/Theme.swift" | head -n1)
  qmp expect-region 40 260 720 200 "$colour" 4
  touch "$VM_SHARE/checked-detail"

  qmp wait-serial list-back --timeout 60
  host_like deleted --within 10 --save "$VM_OUT/back.png"
  touch "$VM_SHARE/checked-back"
}
