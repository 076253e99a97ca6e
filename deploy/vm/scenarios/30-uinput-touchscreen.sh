# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# /dev/uinput works: a real touchscreen (described by a recording of an Atmel maXTouch
# 800x480) is created through uinput, shows up as /dev/input/eventN with INPUT_PROP_DIRECT
# and multitouch axes, and a replay of the recording arrives on it intact.
VM_DISPLAY=virtio

guest() {
  recording=/testdata/touch/atmel-mxt-800x480-one-finger-drag-up-down.evemu
  if [ ! -r "$recording" ]; then
    echo "skip: $recording is missing (the checkout's Tests/Fixtures/touch is not mounted)"
    exit 77
  fi
  kiosk_wait_for /dev/uinput 5
  evemu-device "$recording" >/tmp/evemu-device.out &
  device=$(kiosk_input_device "Atmel maXTouch" 10)
  echo "uinput device: $device"
  kiosk_check "it is a direct (touchscreen) device" \
    grep -qx 2 "/sys/class/input/${device##*/}/device/properties"
  # ABS_MT_SLOT 47, ABS_MT_POSITION_X 53, ABS_MT_POSITION_Y 54
  kiosk_check "it has multitouch slots and positions" kiosk_has_abs "$device" 47 53 54
  touches() { awk '$1 == "E:" && $3 == "0001" && $4 == "014a" { printf "%d ", $5 }' "$1"; }
  last() { awk -v c="$2" '$1 == "E:" && $3 == "0003" && $4 == c { v = $5 } END { print v + 0 }' "$1"; }
  all_arrived() { [ "$(touches /tmp/replayed.evemu)" = "$(touches "$recording")" ]; }
  evemu-record "$device" >/tmp/replayed.evemu &
  recorder=$!
  kiosk_wait_open "$recorder" "$device"
  evemu-play "$device" <"$recording"
  kiosk_wait_until 10 all_arrived || true
  kill "$recorder"
  cp /tmp/replayed.evemu "$KIOSK_OUT/"
  echo "BTN_TOUCH: recorded [$(touches "$recording")] replayed [$(touches /tmp/replayed.evemu)]"
  kiosk_check "the replay presses and releases as recorded" \
    test "$(touches "$recording")" = "$(touches /tmp/replayed.evemu)"
  kiosk_check "the replay ends where the recording does" \
    test "$(last "$recording" 0035) $(last "$recording" 0036)" = \
    "$(last /tmp/replayed.evemu 0035) $(last /tmp/replayed.evemu 0036)"
}
