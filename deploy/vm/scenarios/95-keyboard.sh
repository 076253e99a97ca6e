# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# Keyboard: a uinput keyboard (fixtures/uinput-keyboard.desc.evemu) plugged in while the app runs
# is taken for a keyboard and grabbed (EVIOCGRAB): a second reader (probe --watch) gets nothing
# while the app runs. Arrow right dismisses the top card right, arrow left the next one left,
# Backspace brings the last one back (undo, logged as "undone"), and a held arrow's autorepeat
# does not dismiss more.
# When the app exits, the grab ends and the second reader gets the keys again.
VM_DISPLAY=virtio
VM_TIMEOUT=90

guest() {
  keyboard=/opt/kioskcards/fixtures/uinput-keyboard.desc.evemu
  KioskCards run --deck examples/onboarding.json 2>/tmp/app.log &
  app=$!
  kiosk_wait_until 60 grep -q 'first frame' /tmp/app.log
  evemu-device "$keyboard" >/tmp/keyboard.out 2>&1 &
  kiosk_wait_until 10 grep -q '/dev/input/event' /tmp/keyboard.out
  dev=$(grep -o '/dev/input/event[0-9]*' /tmp/keyboard.out | head -n1)
  kiosk_wait_until 10 grep -q "input: $dev '" /tmp/app.log
  kiosk_check "taken for a keyboard: $(grep "input: $dev '" /tmp/app.log)" \
    grep -q "input: $dev 'KioskCards test keyboard': keyboard" /tmp/app.log
  kiosk_check "and grabbed (no warning about it)" test -z "$(grep 'not grabbed' /tmp/app.log)"

  # A second reader through libevdev (probe --watch does not grab keyboards; it prints keys).
  KioskCards probe --watch "$dev" >/tmp/second-reader.out 2>/tmp/second-reader.log &
  reader=$!
  kiosk_wait_until 10 grep -q "input: $dev '" /tmp/second-reader.log
  key 106 >/tmp/right.evemu # KEY_RIGHT
  key 105 >/tmp/left.evemu  # KEY_LEFT
  key 14 >/tmp/back.evemu   # KEY_BACKSPACE
  evemu-play "$dev" </tmp/right.evemu
  kiosk_wait_until 10 decisions 1
  evemu-play "$dev" </tmp/left.evemu
  kiosk_wait_until 10 decisions 2
  # Held: press, autorepeat (value 2) three times, release: one dismissal only.
  {
    echo "E: 0.000000 0001 006a 1"
    echo "E: 0.000000 0000 0000 0"
    for t in 0.250000 0.283000 0.316000; do
      echo "E: $t 0001 006a 2"
      echo "E: $t 0000 0000 1"
    done
    echo "E: 0.330000 0001 006a 0"
    echo "E: 0.330000 0000 0000 0"
  } >/tmp/held.evemu
  evemu-play "$dev" </tmp/held.evemu
  kiosk_wait_until 10 decisions 3
  # Undo brings 'kaffee' back on top: the next right dismisses it again.
  evemu-play "$dev" </tmp/back.evemu
  evemu-play "$dev" </tmp/right.evemu
  kiosk_wait_until 10 decisions 5
  grep '^decision:' /tmp/app.log | sed 's/ after .*//' >/tmp/decisions.txt
  cat /tmp/decisions.txt
  kiosk_check "right, left, a held right (one card), undo, right again" test "$(cat /tmp/decisions.txt)" = \
    "$(printf "decision: swipedRight card 'willkommen'\ndecision: swipedLeft card 'wlan'\ndecision: swipedRight card 'kaffee'\ndecision: undone card 'kaffee'\ndecision: swipedRight card 'kaffee'")"
  kiosk_check "the second reader got nothing while the app held the grab" test ! -s /tmp/second-reader.out

  kill "$app"
  wait "$app"
  evemu-play "$dev" </tmp/right.evemu
  got_keys() { grep -q '"key":"right"' /tmp/second-reader.out; }
  kiosk_check "after the app exits the keys reach the second reader" kiosk_wait_until 10 got_keys
  kill "$reader"
  wait "$reader" || true
  cp /tmp/app.log /tmp/second-reader.out "$KIOSK_OUT/"
}

# key CODE: press and release of key CODE (decimal), each a frame.
key() {
  printf 'E: 0.000000 0001 %04x 1\nE: 0.000000 0000 0000 0\nE: 0.050000 0001 %04x 0\nE: 0.050000 0000 0000 0\n' "$1" "$1"
}

decisions() { [ "$(grep -c '^decision:' /tmp/app.log)" -ge "$1" ]; }
