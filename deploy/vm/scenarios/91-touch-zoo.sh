# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# The zoo: every recorded panel in /testdata/touch (protocol B, protocol A, single touch with
# BTN_TOUCH and the eGalax ABS_Z/ABS_RX quirk, BTN_LEFT, max = width) is cloned through uinput
# while `KioskCards run` shows the seed stack. The app must open each clone and classify it as
# the recording says (its "input: /dev/input/eventN 'NAME': KIND; MAPPING" line). Then recordings
# are played into their clones and the app must act on them as the deck would: taps and short
# drags decide nothing, the Wacom two-finger swipe right dismisses the top card right, the eGalax
# stroke left dismisses the next one left, and a BTN_LEFT stroke on the Elo clone the third.
VM_DISPLAY=virtio
VM_TIMEOUT=120

guest() {
  td=/testdata/touch
  if [ ! -r "$td/PROVENANCE.md" ]; then
    echo "skip: $td is missing (the checkout's Tests/Fixtures/touch is not mounted)"
    exit 77
  fi
  KioskCards run --deck examples/onboarding.json 2>/tmp/app.log &
  app=$!
  kiosk_wait_until 60 grep -q 'first frame' /tmp/app.log
  t0=$(cut -d' ' -f1 /proc/uptime)
  count=0
  for f in "$td"/*.evemu; do
    zoo_clone "$f"
    count=$((count + 1))
  done
  t1=$(cut -d' ' -f1 /proc/uptime)
  echo "$count clones opened by the app in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s" |
    tee -a "$KIOSK_OUT/figures.txt"

  # What each panel must be taken for (the recording's protocol and contact signal).
  expect_kind atmel-mxt-800x480-one-finger-fast-taps "touchscreen (multitouch, protocol B); x 0…799, y 0…479"
  expect_kind edt-ft5x06-ep0430m09-two-finger-tap "touchscreen (multitouch, protocol B); x 0…1279, y 0…767"
  expect_kind dell-canvas-cooltouch-hid-win8-up-to-5-fingers "touchscreen (multitouch, protocol B); x 0…32767"
  expect_kind 3m-microtouch-22in-up-to-5-fingers.trimmed "touchscreen (multitouch, protocol B)"
  expect_kind wacom-isdv4-e6-finger-two-finger-swipe "touchscreen (multitouch, protocol B); x 0…2776, y 0…1569"
  expect_kind quanta-optical-1920x1080-one-finger-move "touchscreen (multitouch, protocol B); x 0…1920, y 0…1080"
  expect_kind ntrig-protocol-a-two-finger-touch-release "touchscreen (multitouch, protocol A); x 0…9600, y 0…7200"
  expect_kind ntrig-dell-xt2-protocol-a-multi-contact "touchscreen (multitouch, protocol A)"
  expect_kind egalax-0eef-0001-singletouch-z-rx-axes "touchscreen (single touch, BTN_TOUCH); x 30…4040, y 60…4035"
  expect_kind elo-2700-intellitouch-singletouch-btn-left.desc "touchscreen (single touch, BTN_LEFT); x 0…4095"
  node=$(cat /tmp/zoo-egalax-0eef-0001-singletouch-z-rx-axes.node)
  kiosk_check "the eGalax 0eef:0001 quirk is applied" grep -q "input: $node: eGalax 0eef:0001: position read from ABS_Z/ABS_RX" /tmp/app.log
  for f in "$td"/*.evemu; do
    name=${f##*/}
    name=${name%.evemu}
    expect_kind "$name" "touchscreen ("
  done

  # Taps and a short drag decide nothing.
  zoo_play atmel-mxt-800x480-one-finger-fast-taps "$td/atmel-mxt-800x480-one-finger-fast-taps.evemu"
  zoo_play ntrig-protocol-a-two-finger-touch-release "$td/ntrig-protocol-a-two-finger-touch-release.evemu"
  zoo_play edt-ft5x06-ep0430m09-two-finger-tap "$td/edt-ft5x06-ep0430m09-two-finger-tap.evemu"
  zoo_play quanta-optical-1920x1080-one-finger-move "$td/quanta-optical-1920x1080-one-finger-move.evemu"
  # Swipes decide, in order.
  zoo_play wacom-isdv4-e6-finger-two-finger-swipe "$td/wacom-isdv4-e6-finger-two-finger-swipe.evemu"
  kiosk_wait_until 10 decisions 1 || true
  zoo_play egalax-0eef-0001-singletouch-z-rx-axes "$td/egalax-0eef-0001-singletouch-z-rx-axes.evemu"
  kiosk_wait_until 10 decisions 2 || true
  elo_stroke >/tmp/elo-stroke.evemu
  zoo_play elo-2700-intellitouch-singletouch-btn-left.desc /tmp/elo-stroke.evemu
  kiosk_wait_until 10 decisions 3 || true
  grep '^decision:' /tmp/app.log | sed 's/ after .*//' >/tmp/decisions.txt
  cat /tmp/decisions.txt
  kiosk_check "taps and short drags decided nothing; the swipes decided in order" test "$(cat /tmp/decisions.txt)" = \
    "$(printf "decision: swipedRight card 'willkommen'\ndecision: swipedLeft card 'wlan'\ndecision: swipedRight card 'kaffee'")"

  # Unplugging the whole zoo closes every device, and the app is still fine.
  for p in /tmp/zoo-*.pid; do kill "$(cat "$p")"; done
  closed() { [ "$(grep -c 'input: /dev/input/event[0-9]* removed' /tmp/app.log)" -ge "$count" ]; }
  kiosk_check "every clone is closed when it goes away" kiosk_wait_until 10 closed
  kiosk_check "the app is still running" kill -0 "$app"
  kill "$app"
  wait "$app"
  cp /tmp/app.log "$KIOSK_OUT/"
}

# Clones FILE through uinput and waits for the app's line about its node; keeps the node in
# /tmp/zoo-NAME.node and evemu-device's pid in /tmp/zoo-NAME.pid.
zoo_clone() {
  name=${1##*/}
  name=${name%.evemu}
  evemu-device "$1" >"/tmp/zoo-$name.out" 2>&1 &
  echo $! >"/tmp/zoo-$name.pid"
  kiosk_wait_until 10 grep -q '/dev/input/event' "/tmp/zoo-$name.out"
  node=$(grep -o '/dev/input/event[0-9]*' "/tmp/zoo-$name.out" | head -n1)
  echo "$node" >"/tmp/zoo-$name.node"
  kiosk_wait_until 10 grep -q "input: $node '" /tmp/app.log
}

# expect_kind NAME TEXT: the app's line for NAME's clone contains TEXT.
expect_kind() {
  node=$(cat "/tmp/zoo-$1.node")
  line=$(grep "input: $node '" /tmp/app.log | head -n1)
  kiosk_check "$1 ($node): $(echo "$line" | sed "s/^[^']*'[^']*': //")" kiosk_matches "$line" "*': $2*"
}

# zoo_play NAME FILE: plays FILE's events into NAME's clone.
zoo_play() {
  node=$(cat "/tmp/zoo-$1.node")
  evemu-play "$node" <"$2"
}

decisions() { [ "$(grep -c '^decision:' /tmp/app.log)" -ge "$1" ]; }

# A finger stroke right on the Elo 2700 (single touch, BTN_LEFT, X/Y 0..4095): down at
# x 1000, 12 moves 10 ms apart to x 3600, up.
elo_stroke() {
  echo "E: 0.000000 0003 0000 1000"
  echo "E: 0.000000 0003 0001 2000"
  echo "E: 0.000000 0001 0110 1"
  echo "E: 0.000000 0000 0000 0"
  i=1
  while [ "$i" -le 12 ]; do
    printf 'E: 0.%06d 0003 0000 %d\nE: 0.%06d 0000 0000 0\n' $((i * 10000)) $((1000 + i * 2600 / 12)) $((i * 10000))
    i=$((i + 1))
  done
  echo "E: 0.130000 0001 0110 0"
  echo "E: 0.130000 0000 0000 0"
}
