# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# Accessibility (docs/ACCESSIBILITY.md): a keyboard-only visit through a whole deck with a uinput keyboard,
# and speech started by its key. The app runs with speech-device = ALSA's file plugin over the
# null device, so what espeak-ng says goes through real libasound into a WAV file. Checked:
# F1 makes a non-empty WAV (RIFF/WAVE, more than a header); then one-switch scanning
# (switch-key = space): a short press of Space steps the ring from ✗ to ✓ and holding Space
# 1.3 s selects ✓ on the first card; then the "Aa" control by keypad (F2 opens it, ↓ rings high
# contrast, Enter switches it on, Esc closes it, none of them reaching the deck); then ← → → →
# decide the other four cards by key. The deck
# is completed and the database holds the five decisions, in order, with input_method 'switch'
# for the first and 'key' for the rest (read back by `report`), and accessibility_mode false
# for the first and true for the four after high contrast (read back by `export`).
VM_DISPLAY=virtio
VM_TIMEOUT=90

guest() {
  keyboard=/opt/kioskcards/fixtures/uinput-keyboard.desc.evemu
  mkdir -p /tmp/data
  printf 'speech-device = file:FILE=/tmp/speech.wav,FORMAT=wav\nswitch-key = space\n' >/tmp/kiosk.conf
  KioskCards run --config /tmp/kiosk.conf --deck examples/seed-stack.json --data /tmp/data 2>/tmp/app.log &
  app=$!
  kiosk_wait_until 60 grep -q 'first frame' /tmp/app.log
  evemu-device "$keyboard" >/tmp/keyboard.out 2>&1 &
  kiosk_wait_until 10 grep -q '/dev/input/event' /tmp/keyboard.out
  dev=$(grep -o '/dev/input/event[0-9]*' /tmp/keyboard.out | head -n1)
  kiosk_wait_until 10 grep -q "input: $dev '" /tmp/app.log
  kiosk_check "taken for a keyboard" grep -q "input: $dev 'KioskCards test keyboard': keyboard" /tmp/app.log

  key 59 >/tmp/f1.evemu     # KEY_F1: read the card
  key 106 >/tmp/right.evemu # KEY_RIGHT
  key 105 >/tmp/left.evemu  # KEY_LEFT
  evemu-play "$dev" </tmp/f1.evemu
  kiosk_wait_until 10 grep -q 'speech: reading' /tmp/app.log
  wav_done() { [ -f /tmp/speech.wav ] && [ "$(wc -c </tmp/speech.wav)" -gt 10000 ]; }
  kiosk_check "F1 read the card into /tmp/speech.wav through ALSA" kiosk_wait_until 30 wav_done
  kiosk_check "the WAV is RIFF/WAVE" test "$(head -c 4 /tmp/speech.wav)$(dd if=/tmp/speech.wav bs=1 skip=8 count=4 2>/dev/null)" = RIFFWAVE
  echo "speech: $(wc -c </tmp/speech.wav) bytes"
  kiosk_check "no audio warning" test -z "$(grep 'no audio output' /tmp/app.log)"

  # One switch: a short press steps (✗ → ✓), a 1.3 s hold selects at 0.8 s. evemu-play waits
  # between events only once it has seen a non-zero time stamp, so the hold starts at 1 s.
  key 57 >/tmp/step.evemu
  printf 'E: 1.000000 0001 0039 1\nE: 1.000000 0000 0000 0\nE: 2.300000 0001 0039 0\nE: 2.300000 0000 0000 0\n' >/tmp/hold.evemu
  kiosk_check "the switch key is set" grep -q 'switch: space steps through the choices' /tmp/app.log
  evemu-play "$dev" </tmp/step.evemu
  sleep 0.4
  evemu-play "$dev" </tmp/hold.evemu
  grep -E '^switch' /tmp/app.log || true
  kiosk_check "a short press moved the ring to ✓" grep -q 'switch: ring on dismissRight' /tmp/app.log
  kiosk_check "a long press selected the ringed ✓" kiosk_wait_until 10 grep -q 'switch: dismissRight selected' /tmp/app.log
  kiosk_wait_until 10 decisions 1

  # The "Aa" control by keypad: F2 opens it with the ring on large text, ↓ rings high contrast,
  # Enter switches it on, Esc closes the control.
  for k in 60:f2 108:down 28:enter 1:esc; do key "${k%%:*}" >"/tmp/${k#*:}.evemu"; done
  evemu-play "$dev" </tmp/f2.evemu
  kiosk_check "F2 opened the control" kiosk_wait_until 10 grep -q 'access: control opened by key' /tmp/app.log
  evemu-play "$dev" </tmp/down.evemu
  sleep 0.3
  evemu-play "$dev" </tmp/enter.evemu
  kiosk_check "↓ Enter switched high contrast on" \
    kiosk_wait_until 10 grep -q 'access: large text off, high contrast on, reduced motion off' /tmp/app.log
  evemu-play "$dev" </tmp/esc.evemu
  kiosk_check "Esc closed the control" kiosk_wait_until 10 grep -q 'access: control closed by key' /tmp/app.log
  kiosk_check "no key reached the deck while the control was open" test "$(grep -c '^decision:' /tmp/app.log)" = 1

  for k in left right right right; do
    evemu-play "$dev" </tmp/$k.evemu
    sleep 0.4
  done
  kiosk_wait_until 10 decisions 5
  kill "$app"
  wait "$app" || true
  KioskCards export --data /tmp/data --format csv >/tmp/decisions.csv
  cat /tmp/decisions.csv
  tr -d '\r' </tmp/decisions.csv | awk -F, 'NR > 1 { printf "%s%s:%s", (n++ ? " " : ""), $6, $7 }' >/tmp/words.txt
  echo
  cat /tmp/words.txt
  echo
  kiosk_check "one switch and four key decisions through the whole deck, in order" test "$(cat /tmp/words.txt)" = \
    "karte-1:swipedRight karte-2:swipedLeft karte-3:swipedRight karte-4:swipedRight karte-5:swipedRight"
  # export does not carry the input method; the report reads it from the database.
  KioskCards report --data /tmp/data --format json >/tmp/report.json
  methods=$(tr -d ' \n' </tmp/report.json | grep -o '"inputMethods":{[^}]*}')
  echo "$methods"
  kiosk_check "stored with input method 'switch' (1) and 'key' (4)" test "$methods" = '"inputMethods":{"swipe":0,"button":0,"key":4,"switch":1,"tap":0,"unknown":0}'
  # Column 20 is accessibility_mode: off for the switch's decision, on once high contrast was.
  modes=$(tr -d '\r' </tmp/decisions.csv | awk -F, 'NR > 1 { printf "%s%s", (n++ ? " " : ""), $20 }')
  kiosk_check "accessibility_mode false, then true after high contrast (is: $modes)" \
    test "$modes" = "false true true true true"
  cp /tmp/app.log /tmp/decisions.csv /tmp/report.json /tmp/speech.wav "$KIOSK_OUT/"
}

# key CODE: press and release of key CODE (decimal), each a frame.
key() {
  printf 'E: 0.000000 0001 %04x 1\nE: 0.000000 0000 0000 0\nE: 0.050000 0001 %04x 0\nE: 0.050000 0000 0000 0\n' "$1" "$1"
}

decisions() { [ "$(grep -c '^decision:' /tmp/app.log)" -ge "$1" ]; }
