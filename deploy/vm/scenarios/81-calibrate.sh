# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# KioskCards calibrate on the real display and a real (uinput) touchscreen: the first target
# is drawn at 10 % in from the top-left corner; the injector taps the four targets as a
# digitiser that is 5 % too small and 30 px / 10 px off would report them (tap = 0.95 ·
# target + (30, 10)); the computed matrix undoes that (a = e = 1/0.95, c = -30/800/0.95,
# f = -10/480/0.95), taps land on the targets again (result screen), and the config file gets
# the new touch-matrix line in place of the old one with every other line kept.
VM_DISPLAY=virtio
VM_TIMEOUT=150

guest() {
  cat >/tmp/kiosk.conf <<'EOF'
# kiosk.conf for scenario 81
deck = /opt/kioskcards/examples/onboarding.json

# Touch calibration (KioskCards calibrate writes it)
touch-matrix = 1 0 0 0 1 0
rotation = 0
buttons = on
EOF
  KioskCards calibrate --config /tmp/kiosk.conf --linger 6 --timeout 100 >/tmp/calibrate.out 2>/tmp/calibrate.log &
  app=$!
  kiosk_wait_until 60 grep -q 'calibrate: target 1 at' /tmp/calibrate.log
  kiosk_mark calibrate-ready
  kiosk_wait_host seen-target 60
  # Tap = 0.95 * target + (30, 10) px; the targets are at (80,48) (720,48) (720,432) (80,432).
  KioskCards inject --settle 2000 \
    "tap 106 55.6" "wait 700" "tap 714 55.6" "wait 700" \
    "tap 714 420.4" "wait 700" "tap 106 420.4" "wait 400"
  kiosk_wait_until 20 grep -q 'calibrate: wrote' /tmp/calibrate.log
  kiosk_mark calibrated
  kiosk_wait_host seen-result 60
  wait "$app"
  cp /tmp/calibrate.log /tmp/calibrate.out /tmp/kiosk.conf "$KIOSK_OUT/"
  cat /tmp/calibrate.out /tmp/calibrate.log

  line=$(grep '^touch-matrix = ' /tmp/calibrate.out)
  echo "calibrate printed: $line"
  expected="1.052632 0 -0.039474 0 1.052632 -0.02193"
  close() {
    echo "$line" | tr -d '"' | awk -v want="$expected" '{
      n = split(want, w, " ")
      for (i = 1; i <= n; i++) { d = $(i + 2) - w[i]; if (d < 0) d = -d; if (d > 0.003) exit 1 }
    }'
  }
  kiosk_check "the matrix undoes the known offset (within 0.003 of $expected)" close
  worst=$(sed -n 's/.*worst error after calibration \([0-9.]*\) pt.*/\1/p' /tmp/calibrate.log)
  small() { awk -v w="$worst" 'BEGIN { exit !(w < 1.5) }'; }
  kiosk_check "the taps land within 1.5 pt of the targets with it ($worst pt)" small
  kiosk_check "the config's touch-matrix line is replaced in place" \
    test "$(sed -n 5p /tmp/kiosk.conf)" = "$line"
  kiosk_check "every other line is kept" \
    test "$(sed 5d /tmp/kiosk.conf | md5sum)" = "$(printf '%s\n' '# kiosk.conf for scenario 81' \
      'deck = /opt/kioskcards/examples/onboarding.json' '' \
      '# Touch calibration (KioskCards calibrate writes it)' 'rotation = 0' 'buttons = on' | md5sum)"
  no_leftover() { for f in /tmp/kiosk.conf.calibrate-*; do [ ! -e "$f" ]; done; }
  kiosk_check "no temporary file is left" no_leftover
  echo "calibration: $line, worst error $worst pt" >>"$KIOSK_OUT/figures.txt"
}

host() {
  qmp wait-serial calibrate-ready --timeout 120
  # The first target's centre dot (foreground #f2f2f7) at 10 % in, and the dark page around it.
  qmp expect-color --within 10 --save "$VM_OUT/target-1.png" 80 48 '#f2f2f7' 40
  qmp expect-color --image "$VM_OUT/target-1.png" 200 160 '#1c1c1e' 8
  qmp expect-color --image "$VM_OUT/target-1.png" 720 432 '#1c1c1e' 8
  touch "$VM_SHARE/seen-target"
  qmp wait-serial calibrated --timeout 60
  # The result: each tap, corrected, lands on its target (green dots over the target centres).
  for p in "80 48" "720 48" "720 432" "80 432"; do
    # shellcheck disable=SC2086
    qmp expect-color --within 5 --save "$VM_OUT/result.png" $p '#30d158' 60
  done
  touch "$VM_SHARE/seen-result"
}
