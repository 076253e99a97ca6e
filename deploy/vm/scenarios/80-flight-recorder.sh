# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# The input flight recorder, end to end: the kiosk runs the seed stack, the injector swipes
# right, left, taps, swipes right; SIGUSR2 makes the app write its recording. The recording
# replays (on the host, with the flags its header gives) to the same gestures as were injected
# and as the app decided, and `render --script` with it draws the frame the panel shows
# (compared with a screendump: rendered in the guest, with the app's fonts, pixel for pixel;
# rendered on the host, within a small tolerance for other font builds).
VM_DISPLAY=virtio
VM_TIMEOUT=180

guest() {
  deck=/opt/kioskcards/examples/onboarding.json
  mkdir -p /tmp/data
  KioskCards run --deck "$deck" --data /tmp/data --kiosk-id vm-80 --idle-timeout 10m 2>/tmp/app.log &
  app=$!
  kiosk_wait_until 90 grep -q 'first frame' /tmp/app.log
  KioskCards inject --settle 2000 \
    "drag 400 240 720 250 150" "wait 900" \
    "drag 400 240 80 230 150" "wait 900" \
    "tap 20 20" "wait 900" \
    "drag 380 260 760 240 150" "wait 600"
  decided() { [ "$(grep -c 'decision:' /tmp/app.log)" -ge 3 ]; }
  kiosk_wait_until 30 decided
  sleep 3 # the last card flies out and the stack settles
  kiosk_mark settled
  kiosk_wait_host dumped 60

  kill -USR2 "$app"
  wrote() { grep -q 'flight recorder: wrote' /tmp/app.log; }
  kiosk_wait_until 30 wrote
  for file in /tmp/data/input-*.evemu; do break; done
  cp "$file" "$KIOSK_OUT/flight.evemu"
  kiosk_check "SIGUSR2 also logs the stats line" grep -q 'stats: frames' /tmp/app.log

  # The header's render line, run here with the app's fonts.
  render=$(sed -n 's/^# Frames as the panel showed them: KioskCards render //p' "$file" |
    sed "s|--script FILE|--script $file|; s|--out frame.png|--out $KIOSK_OUT/guest-render.png|")
  # shellcheck disable=SC2086  # the header's words are the arguments
  KioskCards render $render
  replay=$(sed -n 's/^# Replay as the app mapped it: KioskCards replay FILE //p' "$file")
  # shellcheck disable=SC2086
  KioskCards replay "$file" $replay >"$KIOSK_OUT/guest-replay.jsonl"

  kill -TERM "$app"
  wait "$app"
  cp /tmp/app.log "$KIOSK_OUT/app.log"
  echo "flight recording: $(grep -c '^E:' "$file") events, $(wc -c <"$file") bytes" >>"$KIOSK_OUT/figures.txt"
  kiosk_mark guest-done
}

host() {
  bin="$REPO_ROOT/.build/release/KioskCards"
  qmp wait-serial settled --timeout 150
  qmp screendump "$VM_OUT/live.png"
  touch "$VM_SHARE/dumped"
  qmp wait-serial guest-done --timeout 90
  out="$VM_SHARE/out"
  file="$out/flight.evemu"
  grep -n '^#' "$file"

  # Gestures: what was injected (right, left, a tap, right) = what the replay finds = the app's decisions.
  replay=$(sed -n 's/^# Replay as the app mapped it: KioskCards replay FILE //p' "$file")
  # shellcheck disable=SC2086
  "$bin" replay "$file" $replay >"$VM_OUT/host-replay.jsonl"
  gestures=$(grep '"type":"gesture"' "$VM_OUT/host-replay.jsonl" |
    sed 's/.*"kind":"\([a-z]*\)".*"dismiss":"\([a-z]*\)".*/\1:\2/' | tr '\n' ' ')
  echo "replayed gestures: $gestures"
  [ "$gestures" = "drag:right drag:left tap:none drag:right " ] || {
    echo "FAIL the replay's gestures are not the injected ones"
    return 1
  }
  decisions=$(sed -n 's/.*decision: \([A-Za-z]*\) card.*/\1/p' "$out/app.log" | tr '\n' ' ')
  echo "app decisions: $decisions"
  [ "$decisions" = "swipedRight swipedLeft swipedRight " ] || {
    echo "FAIL the app decided otherwise"
    return 1
  }
  if ! cmp "$VM_OUT/host-replay.jsonl" "$out/guest-replay.jsonl"; then
    echo "FAIL the host's and the guest's replay of the recording differ"
    return 1
  fi
  echo "ok   host and guest replay alike"

  # The final frame: render --script with the recording vs the screendump.
  render=$(sed -n 's/^# Frames as the panel showed them: KioskCards render //p' "$file" |
    sed "s|--script FILE|--script $file|; s|--out frame.png|--out $VM_OUT/host-render.png|; s|/opt/kioskcards/|$REPO_ROOT/|")
  # shellcheck disable=SC2086
  "$bin" render $render
  compare() {
    python3 - "$@" <<'EOF'
import sys
sys.path.insert(0, sys.argv[4])
from qmp import Image
a, b, limit = Image.read(sys.argv[1]), Image.read(sys.argv[2]), float(sys.argv[3])
assert (a.width, a.height) == (b.width, b.height), f"sizes differ: {a.width}x{a.height} vs {b.width}x{b.height}"
diff = [abs(x - y) for x, y in zip(a.rgb, b.rgb)]
pixels = sum(1 for i in range(0, len(diff), 3) if max(diff[i:i + 3]) > 8)
share = pixels / (a.width * a.height)
print(f"{sys.argv[2]}: {pixels} of {a.width * a.height} pixels differ by more than 8 ({share:.4%}), max {max(diff)}")
sys.exit(0 if share <= limit else 1)
EOF
  }
  compare "$VM_OUT/live.png" "$out/guest-render.png" 0 "$VM_DIR"
  compare "$VM_OUT/live.png" "$VM_OUT/host-render.png" 0.01 "$VM_DIR"
}
