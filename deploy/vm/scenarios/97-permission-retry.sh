# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# Hotplug while udev is still setting a node up: the reader runs as an unprivileged user
# (nobody, via su) and a new panel's node first appears root-only (0600, as devtmpfs makes
# it), like on a kiosk whose user is in group 'input' before udev has applied its rule.
# - udev is 0.5 s late: the app retries (100 ms apart, ~1 s) and opens the node on a later try;
# - udev is later than the retries: the app says what is wrong and how to fix it, then opens
#   the node as soon as its mode changes (inotify IN_ATTRIB);
# - either way the opened device then decodes touches.
# The reader is `probe --watch PATH` started before the node exists, so it uses the app's
# InputManager discovery, retry and inotify paths.
VM_DISPLAY=virtio
VM_TIMEOUT=60

guest() {
  recording=/testdata/touch/atmel-mxt-800x480-one-finger-fast-taps.evemu
  if [ ! -r "$recording" ]; then
    echo "skip: $recording is missing (the checkout's Tests/Fixtures/touch is not mounted)"
    exit 77
  fi
  # The kernel gives a new evdev node the lowest free number.
  n=0
  while [ -e "/dev/input/event$n" ]; do n=$((n + 1)); done
  path=/dev/input/event$n
  : >/tmp/watch.log
  # busybox's su (its setpriv cannot change ids); the guest has no passwd file of its own.
  grep -q '^nobody:' /etc/passwd 2>/dev/null || echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
  grep -q '^nobody:' /etc/group 2>/dev/null || echo 'nogroup:x:65534:' >>/etc/group
  su -s /bin/sh nobody -c "exec KioskCards probe --watch $path" >/tmp/watch.out 2>>/tmp/watch.log &
  watcher=$!
  kiosk_wait_until 10 grep -q "waiting for $path to appear" /tmp/watch.log

  # 1. The mode arrives 0.3 s after the node (inside the retry window).
  plug
  kiosk_check "the node is root-only at first ($(stat -c '%A %U' "$path"))" \
    test "$(stat -c '%A %U' "$path")" = "crw------- root"
  usleep 500000 # udev is half a second late (the retries span ~1 s)
  chmod 0666 "$path"
  kiosk_check "opened on a retry" kiosk_wait_until 5 grep -q "input: $path opened on try" /tmp/watch.log
  grep "input: $path" /tmp/watch.log
  tap 400
  kiosk_check "and it decodes a tap" kiosk_wait_until 5 grep -q '"id":1,[^}]*"phase":"ended"' /tmp/watch.out

  # 2. The mode arrives after the retries gave up.
  unplug
  plug
  kiosk_wait_until 5 grep -q "permission denied on $path" /tmp/watch.log
  kiosk_check "it says why and what to do: $(grep "permission denied on $path" /tmp/watch.log | sed 's/.* — //')" \
    grep -q "add the kiosk's user to group 'input'" /tmp/watch.log
  chmod 0666 "$path"
  opened_twice() { [ "$(grep -c "input: $path 'Atmel" /tmp/watch.log)" -ge 2 ]; }
  kiosk_check "opened as soon as its mode changed" kiosk_wait_until 5 opened_twice
  tap 600
  kiosk_check "and it decodes a tap" kiosk_wait_until 5 grep -q '"id":2,[^}]*"phase":"ended"' /tmp/watch.out
  unplug
  kill "$watcher"
  wait "$watcher" || true
  cat /tmp/watch.out
  cp /tmp/watch.out /tmp/watch.log "$KIOSK_OUT/"
}

plug() {
  : >/tmp/device.out
  evemu-device "$recording" >/tmp/device.out 2>&1 &
  device_pid=$!
  kiosk_wait_until 10 grep -q '/dev/input/event' /tmp/device.out
  kiosk_check "the clone got $path" grep -q "$path\$" /tmp/device.out
}

unplug() {
  kill "$device_pid"
  wait "$device_pid" 2>/dev/null || true
  kiosk_wait_until 5 test ! -e "$path"
}

# tap X: a tap at (X, 240) on the Atmel (0..799 x 0..479).
tap() {
  printf 'E: 0.000000 0003 0039 %d\nE: 0.000000 0003 0035 %d\nE: 0.000000 0003 0036 240\nE: 0.000000 0001 014a 1\nE: 0.000000 0000 0000 0\n' "$1" "$1" >/tmp/tap.evemu
  printf 'E: 0.040000 0003 0039 -1\nE: 0.040000 0001 014a 0\nE: 0.040000 0000 0000 0\n' >>/tmp/tap.evemu
  evemu-play "$path" </tmp/tap.evemu
}
