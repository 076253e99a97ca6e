# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# Lockdown at the glass: a visitor's USB keyboard (a uinput keyboard with every PC key,
# fixtures/uinput-full-keyboard.desc.evemu) plugged into the running kiosk plays the console's
# escape chords: Ctrl+Alt+F2 (switch to VT 2), Alt+SysRq+H (the kernel's SysRq help) and
# Ctrl+Alt+Del. The kiosk runs on tty1 (its console in graphics mode, keyboard off) and grabs
# the keyboard: the active VT stays tty1, SysRq prints nothing, the app keeps running and the
# screen keeps the kiosk (host: the corner pixel is the same and not the blue console of VT 2).
# After the app exits the console is back: the same Ctrl+Alt+F2 switches to VT 2 (the chord
# is real) and the screen shows that console's blue.
VM_DISPLAY=virtio
VM_TIMEOUT=120

guest() {
  . /share/lib/app.sh
  keyboard=/opt/kioskcards/fixtures/uinput-full-keyboard.desc.evemu
  echo 1 >/proc/sys/kernel/sysrq
  # VT 2 shows a blue console: a switch to it would be plain on the screen.
  printf '\033[44m\033[2J\033[HKioskCards e2e: VT 2, the console a visitor must not reach\n' >/dev/tty2
  APP_DATA=/tmp/escape-data APP_LOG=/tmp/app.log
  mkdir -p "$APP_DATA"
  KioskCards run --data "$APP_DATA" --deck examples/seed-stack.json --idle-timeout 10m </dev/tty1 >"$APP_LOG" 2>&1 &
  APP_PID=$!
  app_wait_log 'first frame on screen' 1 60
  evemu-device "$keyboard" >/tmp/keyboard.out 2>&1 &
  kiosk_wait_until 10 grep -q '/dev/input/event' /tmp/keyboard.out
  dev=$(grep -o '/dev/input/event[0-9]*' /tmp/keyboard.out | head -n1)
  app_wait_log "input: $dev '" 1 10
  kiosk_check "the keyboard is grabbed (no warning about it)" test -z "$(grep 'not grabbed' "$APP_LOG")"
  vt=$(cat /sys/class/tty/tty0/active)
  kiosk_check "the kiosk's console is the active VT ($vt)" test "$vt" = tty1
  sysrq_before=$(dmesg | grep -c 'sysrq: HELP' || true)
  kiosk_mark escape-before
  kiosk_wait_host shot-before 30
  # Ctrl+Alt+F2; Alt+SysRq+H; Ctrl+Alt+Del: each pressed in order, released in reverse.
  chord 29 56 60 >/tmp/vt.evemu
  chord 56 99 35 >/tmp/sysrq.evemu
  chord 29 56 111 >/tmp/cad.evemu
  evemu-play "$dev" </tmp/vt.evemu
  evemu-play "$dev" </tmp/sysrq.evemu
  evemu-play "$dev" </tmp/cad.evemu
  sleep 1
  kiosk_check "Ctrl+Alt+F2 left tty1 active (is: $(cat /sys/class/tty/tty0/active))" \
    test "$(cat /sys/class/tty/tty0/active)" = tty1
  kiosk_check "Alt+SysRq+H printed nothing" test "$(dmesg | grep -c 'sysrq: HELP' || true)" = "$sysrq_before"
  kiosk_check "the kiosk still runs" kill -0 "$APP_PID"
  kiosk_mark escape-after
  kiosk_wait_host shot-after 30
  kill -TERM "$APP_PID"
  APP_STATUS=0
  wait "$APP_PID" || APP_STATUS=$?
  kiosk_check "SIGTERM: the app exits with status 0 (is: $APP_STATUS)" test "$APP_STATUS" = 0
  # The console is back: the same chord now reaches it.
  evemu-play "$dev" </tmp/vt.evemu
  switched() { test "$(cat /sys/class/tty/tty0/active)" = tty2; }
  kiosk_check "after the app exits Ctrl+Alt+F2 switches to VT 2" kiosk_wait_until 10 switched
  kiosk_mark escape-console
  kiosk_wait_host shot-console 30
  cp "$APP_LOG" "$KIOSK_OUT/app.log"
}

# chord CODE...: the keys pressed in order, then released in reverse, each change a frame.
chord() {
  _t=0
  for _k in "$@"; do
    printf 'E: 0.%06d 0001 %04x 1\nE: 0.%06d 0000 0000 0\n' "$_t" "$_k" "$_t"
    _t=$((_t + 50000))
  done
  _r=
  for _k in "$@"; do _r="$_k $_r"; done
  for _k in $_r; do
    printf 'E: 0.%06d 0001 %04x 0\nE: 0.%06d 0000 0000 0\n' "$_t" "$_k" "$_t"
    _t=$((_t + 50000))
  done
}

host() {
  # shot MARK FILE: waits for the guest's MARK, saves the screen, lets the guest go on and
  # prints the colour of the corner pixel (the kiosk's background, or a console's).
  shot() {
    qmp wait-serial "$1" --timeout 90 >/dev/null
    sleep 0.5
    qmp screendump "$VM_OUT/$2.png" >/dev/null
    qmp pixel 4 4
    touch "$VM_SHARE/shot-${1#escape-}"
  }
  before=$(shot escape-before before)
  after=$(shot escape-after after-chords)
  echo "corner pixel before the chords: $before, after: $after"
  if [ "$before" != "$after" ]; then
    echo "FAIL: the screen changed under the escape chords"
    return 1
  fi
  console=$(shot escape-console console)
  echo "corner pixel on VT 2 after the app exited: $console"
  if [ "$console" = "$before" ]; then
    echo "FAIL: after the app exited the chord did not bring a console"
    return 1
  fi
}
