# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# The live decode equals the replay: every recorded panel in /testdata/touch is cloned through
# uinput (evemu-device), `KioskCards probe --watch` reads the clone through the app's input path
# (libevdev, CLOCK_MONOTONIC, InputManager) while evemu-play plays the recording into it, and its
# lines must equal `KioskCards replay` of the same file: every frame (ids, positions, phases),
# every gesture (kind, translation, dismiss). Only the timestamps and the gesture velocities
# (timing-dependent: evemu-play reproduces the recorded spacing only roughly) are left out, and
# a tap the live clock saw held past 0.8 s may be a hold (checked against the live time stamps).
# Panels whose axes declare a fuzz are filtered by the kernel again on the way through the clone
# (input_defuzz_abs_event), so for them the live decode must keep the same contacts, each of
# which ends, and the same gestures (kind and side), but positions may differ by the fuzz.
VM_DISPLAY=virtio
VM_TIMEOUT=150

guest() {
  td=/testdata/touch
  if [ ! -r "$td/PROVENANCE.md" ]; then
    echo "skip: $td is missing (the checkout's Tests/Fixtures/touch is not mounted)"
    exit 77
  fi
  # Three lanes play at once (the playback is mostly waiting): the 14 s Dell Canvas recording
  # in one, the others alternately in the other two.
  live_decode_lane dell-canvas-cooltouch-hid-win8-up-to-5-fingers.evemu >/tmp/lane-0.out 2>&1 &
  lane0=$!
  a="" b="" n=1
  for f in "$td"/*.evemu; do
    name=${f##*/}
    grep -q '^E:' "$f" || continue
    n=$((n + 1))
    case $name in dell-canvas-*) continue ;; esac
    if [ $((n % 2)) = 0 ]; then a="$a $name"; else b="$b $name"; fi
  done
  # shellcheck disable=SC2086  # the names are words
  live_decode_lane $a >/tmp/lane-1.out 2>&1 &
  lane1=$!
  # shellcheck disable=SC2086
  live_decode_lane $b >/tmp/lane-2.out 2>&1 || true
  wait "$lane0" || true
  wait "$lane1" || true
  cat /tmp/lane-1.out /tmp/lane-2.out /tmp/lane-0.out
  cp /tmp/*.live /tmp/*.replay /tmp/*.watch.log "$KIOSK_OUT/" 2>/dev/null || true
  grep -h '^figure:' /tmp/lane-*.out | sed 's/^figure: //' >"$KIOSK_OUT/figures.txt"
  kiosk_check "every recording decodes live as it replays" test -z "$(grep -h '^FAIL' /tmp/lane-*.out)"
  compared=$(cat /tmp/lane-*.out | grep -c '^ok ')
  kiosk_check "all $((n - 1)) recordings with events were compared ($compared)" test "$compared" = $((n - 1))
}

# Whether every hold in the decoder output FILE follows frames spanning more than 0.8 s (the
# frames since the previous gesture, by their "t" time stamps).
holds_lasted() {
  awk -F'"t":' '
    /"type":"frame"/ { split($2, a, ","); t = a[1] + 0; if (!seen) first = t; seen = 1; last = t; next }
    /"type":"gesture"/ { if ($0 ~ /"kind":"hold"/ && last - first <= 0.8) bad++; seen = 0 }
    END { exit bad > 0 }' "$1"
}

# Clones, watches, plays and compares each FILE in turn; prints ok/FAIL lines and figures.
live_decode_lane() {
  status=0
  for name in "$@"; do
    live_decode_one "$name" || status=1
  done
  return "$status"
}

live_decode_one() {
  name=$1 f=/testdata/touch/$1 base=/tmp/${1%.evemu}
  # The lanes' results are printed together at the end; meanwhile each recording started shows
  # on the serial console, so a slow, busy host is not taken for a stuck VM (run-vm.sh --stall).
  echo "live-decode: $name" >/dev/console
  KioskCards replay "$f" >"$base.replay" 2>/dev/null
  want=$(wc -l <"$base.replay")
  evemu-device "$f" >"$base.device" 2>&1 &
  device_pid=$!
  kiosk_wait_until 10 grep -q '/dev/input/event' "$base.device"
  dev=$(grep -o '/dev/input/event[0-9]*' "$base.device" | head -n1)
  kiosk_wait_for "$dev" 5
  KioskCards probe --watch "$dev" >"$base.live" 2>"$base.watch.log" &
  watcher=$!
  kiosk_wait_until 10 grep -q "input: $dev '" "$base.watch.log"
  t0=$(cut -d' ' -f1 /proc/uptime)
  evemu-play "$dev" <"$f"
  t1=$(cut -d' ' -f1 /proc/uptime)
  # Done when every line arrived, or (fuzzed axes: positions, so frame counts, may differ)
  # every contact has ended and the last line is of the replay's last kind.
  ends() { grep -oE '"phase":"(ended|cancelled)"' "$1" | wc -l; }
  kind() { tail -n 1 "$1" | cut -d, -f1; }
  want_ends=$(ends "$base.replay")
  all_lines() {
    [ "$(wc -l <"$base.live")" -ge "$want" ] ||
      { [ "$(ends "$base.live")" -ge "$want_ends" ] && [ "$(kind "$base.live")" = "$(kind "$base.replay")" ]; }
  }
  kiosk_wait_until 10 all_lines || true
  kill "$watcher"
  wait "$watcher" || true
  kill "$device_pid"
  wait "$device_pid" 2>/dev/null || true
  got=$(wc -l <"$base.live")
  echo "figure: $name: $want lines, live $got, played in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
  strip() { sed -E 's/"t":[-0-9.]+,//; s/,"velocity":\[[^]]*\]//' "$1"; }
  if [ "$(strip "$base.replay")" = "$(strip "$base.live")" ]; then
    echo "ok   $name: live = replay ($want lines)"
    return 0
  fi
  # A tap and a hold differ only by how long the finger stayed (DragRecognizer.longPressSeconds,
  # 0.8 s), and evemu-play on a busy host can stretch a recorded 0.36 s tap past that: the same
  # frames, one gesture called "hold". Accepted only when the live time stamps show it: every
  # live hold's frames span more than 0.8 s.
  press() { sed -E 's/"kind":"(tap|hold)"/"kind":"press"/'; }
  if [ "$(strip "$base.replay" | press)" = "$(strip "$base.live" | press)" ] && holds_lasted "$base.live"; then
    echo "ok   $name: live = replay ($want lines; a tap held past 0.8 s by the live clock is a hold)"
    return 0
  fi
  if grep -qE '^A: (35|36|00|01) +-?[0-9]+ +-?[0-9]+ +[1-9]' "$f"; then
    # Fuzzed axes: same contacts (each ends), same gestures (kind and side).
    contacts() { grep -oE '"id":[0-9]+,[^}]*"phase":"(began|ended|cancelled)"' "$1" | sed -E 's/"x":[^,]*,"y":[^,]*,//'; }
    gestures() {
      grep '"gesture"' "$1" | sed -E 's/"translation":\[[^]]*\],//; s/,"velocity":\[[^]]*\]//' | press
      holds_lasted "$1" || echo "a hold shorter than 0.8 s"
    }
    if [ "$(contacts "$base.replay")" = "$(contacts "$base.live")" ] &&
      [ "$(gestures "$base.replay")" = "$(gestures "$base.live")" ]; then
      echo "ok   $name: same contacts and gestures (positions re-filtered by the axis fuzz)"
      return 0
    fi
  fi
  if grep -q SYN_DROPPED "$base.watch.log"; then
    echo "FAIL $name: the watcher fell behind and the kernel dropped events (a loaded machine?)"
  fi
  echo "FAIL $name: live decode differs from replay (want $want lines, got $got):"
  diff "$base.replay" "$base.live" | head -n 12 | sed 's/^/     /'
  return 1
}
