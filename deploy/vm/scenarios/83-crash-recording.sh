# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# A crash still leaves the input behind: the kiosk runs, the injector swipes right, left,
# taps, swipes right, then the app gets SIGSEGV (as a fault would raise it). Its fatal-signal
# handler writes input-crash-*.evemu into the data directory before the signal kills it, and
# that file replays to the injected gestures.
VM_DISPLAY=virtio
VM_TIMEOUT=150

guest() {
  mkdir -p /tmp/data
  KioskCards run --deck examples/onboarding.json --data /tmp/data --kiosk-id vm-83 2>/tmp/app.log &
  app=$!
  kiosk_wait_until 90 grep -q 'first frame' /tmp/app.log
  KioskCards inject --settle 2000 \
    "drag 400 240 720 250 150" "wait 900" \
    "drag 400 240 80 230 150" "wait 900" \
    "tap 20 20" "wait 900" \
    "drag 380 260 760 240 150" "wait 600" &
  injector=$!
  decided() { [ "$(grep -c 'decision:' /tmp/app.log)" -ge 3 ]; }
  kiosk_wait_until 30 decided
  wait "$injector"
  kill -SEGV "$app"
  status=0
  wait "$app" || status=$?
  cp /tmp/app.log "$KIOSK_OUT/app.log"
  tail -n 3 /tmp/app.log
  kiosk_check "the app died of the signal (status $status = 128 + 11)" test "$status" = 139
  kiosk_check "the handler said where the input went" grep -q 'flight recorder: fatal signal 11' /tmp/app.log
  for file in /tmp/data/input-crash-*.evemu; do break; done
  kiosk_check "it wrote $file" test -s "$file"
  cp "$file" "$KIOSK_OUT/crash.evemu"
  # The panel in points, as the app mapped the touchscreen ("… → panel 1259×755 pt, …").
  panel=$(sed -n 's/.*→ panel \([0-9]*\)×\([0-9]*\) pt.*/\1x\2/p' /tmp/app.log | head -n1)
  KioskCards replay "$file" --screen "$panel" >/tmp/replay.jsonl
  gestures=$(grep '"type":"gesture"' /tmp/replay.jsonl |
    sed 's/.*"kind":"\([a-z]*\)".*"dismiss":"\([a-z]*\)".*/\1:\2/' | tr '\n' ' ')
  echo "replayed gestures: $gestures"
  kiosk_check "the crash recording replays to the injected gestures" \
    test "$gestures" = "drag:right drag:left tap:none drag:right "
  echo "crash recording: $(grep -c '^E:' "$file") events" >>"$KIOSK_OUT/figures.txt"
}
