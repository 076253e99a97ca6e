# shellcheck shell=sh disable=SC2034,SC2317,SC1091,SC2153  # VM_* read by e2e.sh; functions run indirectly; lib/ is on the host; OWN, DATA from own.env
# The preview of your own deck: deploy/vm/preview.sh itself, as a person starts it,
# on a deck in a temp folder outside the repo with a PNG beside it, driven by the VNC mouse
# (the usb-tablet):
#   first frame   the deck's blue card with its amber image           expected-first + colours
#   host edit     deck.json rewritten on the host (saved by rename): the card turns green and
#                 is retitled; the app inside polls the 9p folder and reloads  expected-edited
#   two swipes    right, then left: two decisions
#   while running the host's --data folder gets decisions.csv with both rows
#   Ctrl-C        (SIGINT to preview.sh) the app stops, the host's folder gets decisions.csv and
#                 decisions.sqlite3, which the host's own `KioskCards export` reads
VM_RUNNER=preview
VM_TIMEOUT=150

# Writes a PNG of one colour (stdlib only).
_own_png() {
  python3 - "$@" <<'PY'
import struct, sys, zlib
path, w, h, colour = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rgb = bytes(int(colour[i:i + 2], 16) for i in (1, 3, 5))
raw = b"".join(b"\x00" + rgb * w for _ in range(h))
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
with open(path, "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
PY
}

# The deck, with the first card's colour and title as given.
_own_deck() {
  cat <<EOF
{
  "id": "own-deck",
  "version": 1,
  "title": "Mein Deck",
  "layout": "stack",
  "emptyText": "Fertig",
  "cards": [
    { "id": "own-1", "title": "$2", "subtitle": "Mit Bild", "color": "$1", "image": "images/amber.png" },
    { "id": "own-2", "title": "Zweite Karte", "subtitle": "Ohne Bild", "color": "#6A1B9A" }
  ]
}
EOF
}

# The share of a screendump's pixels near COLOUR (within 40 per channel), in per cent.
_own_share_of() {
  python3 - "$VM_DIR" "$1" "$2" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from qmp import Image
img = Image.read(sys.argv[2])
want = [int(sys.argv[3][i:i + 2], 16) for i in (1, 3, 5)]
px, n = img.rgb, 0
for i in range(0, len(px), 3):
    if abs(px[i] - want[0]) <= 40 and abs(px[i + 1] - want[1]) <= 40 and abs(px[i + 2] - want[2]) <= 40:
        n += 1
print(f"{100 * n / (img.width * img.height):.1f}")
PY
}

# Checks that at least MIN % (or, with MIN negative, at most -MIN %) of the scanout is COLOUR.
_own_expect_share() {
  _pc=$(_own_share_of "$1" "$2")
  if awk -v p="$_pc" -v m="$3" 'BEGIN { exit !((m >= 0 && p >= m) || (m < 0 && p <= -m)) }'; then
    echo "ok   $4: $_pc % of $1 is $2"
  else
    echo "FAIL $4: $_pc % of $1 is $2 (want $([ "${3#-}" = "$3" ] && echo "at least $3" || echo "at most ${3#-}") %)"
    return 1
  fi
}

prepare() {
  own=$(mktemp -d /tmp/kiosk-own-deck.XXXXXX)
  data=$(mktemp -d /tmp/kiosk-own-data.XXXXXX)
  case $own in "$REPO_ROOT"/*) echo "the deck folder must be outside the repo" >&2 && return 1 ;; esac
  mkdir "$own/images"
  _own_png "$own/images/amber.png" 320 200 '#FFB300'
  _own_deck '#1565C0' 'Eigene Karte' >"$own/deck.json"
  printf '%s\n' --deck "$own/deck.json" --data "$data" --idle-timeout 10m >"$VM_OUT/preview.args"
  printf 'OWN=%s DATA=%s\n' "$own" "$data" >"$VM_OUT/own.env"
  echo "deck folder $own, data folder $data"
}

host() {
  . "$VM_DIR/scenarios/lib/app.sh"
  . "$VM_OUT/own.env"
  qmp wait-serial 'first frame on screen' --timeout 120
  # The app's own scale, from its startup line ("… 800x480 px, 0.635 px/pt, …").
  line=$(tr -d '\r' <"$VM_SERIAL" | grep -m1 ' px/pt')
  mm=$(echo "$line" | sed -n 's/.*, panel \([0-9]*x[0-9]*\) mm,.*/\1/p')
  host_app_geometry "scale=$(echo "$line" | sed -n 's/.* \([0-9.]*\) px\/pt.*/\1/p') rotation=0 panel=$(echo "$line" | sed -n 's/.* \([0-9]*x[0-9]*\) px,.*/\1/p')${mm:+ mm=$mm}"
  if tr -d '\r' <"$VM_SERIAL" | grep -q 'deck: /deck is on 9p, .*checking deck.json every second'; then
    echo "ok   the app saw that /deck is on 9p and polls deck.json"
  else
    echo "FAIL the app did not say that it polls the deck on 9p"
    return 1
  fi

  host_render first "$OWN/deck.json"
  cp "$OWN/deck.json" "$VM_OUT/deck-before.json"
  host_like first --within 20
  _own_expect_share "$VM_OUT/first.png" '#FFB300' 5 "the deck's image is on screen"
  _own_expect_share "$VM_OUT/first.png" '#2E7D32' -0.5 "no green yet"

  # The edit, saved like an editor saves: a new file renamed over the deck.
  _own_deck '#2E7D32' 'Geänderte Karte' >"$OWN/.deck.json.swp"
  mv "$OWN/.deck.json.swp" "$OWN/deck.json"
  cp "$OWN/deck.json" "$VM_OUT/deck-edited.json"
  host_render edited "$OWN/deck.json"
  host_differ first edited
  qmp wait-serial "deck: reloaded /deck/deck.json" --timeout 60
  host_like edited --within 20
  _own_expect_share "$VM_OUT/edited.png" '#2E7D32' 5 "the edited card is green"
  _own_expect_share "$VM_OUT/edited.png" '#FFB300' 5 "the image is still there"

  # Two swipes with the VNC mouse (the usb-tablet): 200 pt right, then 200 pt left, from the
  # middle of the screen, 400 ms each.
  # shellcheck disable=SC2046  # four numbers, four arguments
  qmp tablet-drag $(awk -v p="$HOST_PANEL" -v s="$HOST_SCALE" \
    'BEGIN { split(p, a, "x"); printf "%d %d %d %d", a[1] / 2, a[2] / 2, a[1] / 2 + 200 * s, a[2] / 2 }') 400
  qmp wait-serial "decision: swipedRight card 'own-1'" --timeout 60
  sleep 1
  # shellcheck disable=SC2046
  qmp tablet-drag $(awk -v p="$HOST_PANEL" -v s="$HOST_SCALE" \
    'BEGIN { split(p, a, "x"); printf "%d %d %d %d", a[1] / 2, a[2] / 2, a[1] / 2 - 200 * s, a[2] / 2 }') 400
  qmp wait-serial "decision: swipedLeft card 'own-2'" --timeout 60

  # While it runs: the CSV in the host's folder, 2 s after the last decision.
  qmp wait-serial "preview: exported 2 decisions" --timeout 60
  rows=$(tr -d '\r' <"$DATA/decisions.csv" | awk -F, 'NR > 1 { printf "%s%s:%s", (n++ ? " " : ""), $6, $7 }')
  [ "$rows" = "own-1:swipedRight own-2:swipedLeft" ] || { echo "FAIL decisions.csv while running: '$rows'" && return 1; }
  echo "ok   while running, $DATA/decisions.csv holds $rows"

  # Ctrl-C: the app stops, the decisions and the database come back, the VM powers off.
  rm -f "$DATA/decisions.csv"
  kill -INT "$VM_PID"
  qmp wait-serial "preview: copied the database" --timeout 90
  for _ in $(seq 600); do
    [ -e "$VM_SHARE/status" ] && break
    sleep 0.2
  done
  [ "$(cat "$VM_SHARE/status" 2>/dev/null)" = 0 ] || { echo "FAIL the guest's status is '$(cat "$VM_SHARE/status" 2>/dev/null)'" && return 1; }
  rows=$(tr -d '\r' <"$DATA/decisions.csv" | awk -F, 'NR > 1 { printf "%s%s:%s", (n++ ? " " : ""), $6, $7 }')
  [ "$rows" = "own-1:swipedRight own-2:swipedLeft" ] || { echo "FAIL decisions.csv at exit: '$rows'" && return 1; }
  echo "ok   after Ctrl-C, $DATA/decisions.csv holds $rows"
  exported=$("${VM_APP:-$REPO_ROOT/.build/release/KioskCards}" export --data "$DATA" --format csv |
    tr -d '\r' | awk -F, 'NR > 1 { printf "%s%s:%s", (n++ ? " " : ""), $6, $7 }')
  [ "$exported" = "$rows" ] || { echo "FAIL KioskCards export --data $DATA on the host: '$exported'" && return 1; }
  echo "ok   KioskCards export --data $DATA on the host reads the copied database: $exported"
  cp -R "$DATA" "$VM_OUT/data"
  rm -rf "$OWN" "$DATA"
}
