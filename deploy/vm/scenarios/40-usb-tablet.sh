# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# The usb-tablet (the preview's finger) appears as an absolute pointer, a drag the host sends
# through QMP input-send-event arrives with the coordinates the host meant, and the tablet can
# be hot-unplugged and plugged back in.
VM_DISPLAY=virtio
VM_TABLET=1

guest() {
  device=$(kiosk_input_device "QEMU USB Tablet" 20)
  echo "usb-tablet: $device"
  kiosk_check "it reports absolute X and Y" kiosk_has_abs "$device" 0 1
  buttons() { awk '$1 == "E:" && $3 == "0001" && $4 == "0110" { printf "%d ", $5 }' /tmp/tablet.evemu; }
  released() { kiosk_matches "$(buttons)" "* 0 "; }
  evemu-record "$device" >/tmp/tablet.evemu &
  recorder=$!
  kiosk_wait_open "$recorder" "$device"
  kiosk_mark tablet-recording
  kiosk_wait_host dragged 30
  kiosk_wait_until 10 released || true
  kill "$recorder"
  cp /tmp/tablet.evemu "$KIOSK_OUT/"
  axis() {
    awk -v c="$1" -v which="$2" '$1 == "E:" && $3 == "0003" && $4 == c { v = $5; if (!n++) f = v }
      END { print (which == "first" ? f : v) + 0 }' /tmp/tablet.evemu
  }
  # The tablet's axes run 0..32767 over the 800x480 scanout (qmp.py's mapping).
  abs() { awk -v p="$1" -v n="$2" 'BEGIN { printf "%d", p * 32767 / (n - 1) + 0.5 }'; }
  echo "x $(axis 0000 first) -> $(axis 0000 last), y $(axis 0001 first) -> $(axis 0001 last), left [$(buttons)]"
  kiosk_check "the drag starts at pixel (100,100)" \
    test "$(axis 0000 first) $(axis 0001 first)" = "$(abs 100 800) $(abs 100 480)"
  kiosk_check "and ends at pixel (700,400)" \
    test "$(axis 0000 last) $(axis 0001 last)" = "$(abs 700 800) $(abs 400 480)"
  kiosk_check "the button goes down, then up" test "$(buttons)" = "1 0 "

  kiosk_mark tablet-checked
  kiosk_check "the tablet goes away when unplugged" kiosk_wait_until 10 test ! -e "$device"
  kiosk_mark tablet-gone
  again=$(kiosk_input_device "QEMU USB Tablet" 20)
  kiosk_check "and comes back when plugged in ($again)" kiosk_has_abs "$again" 0 1
}

host() {
  qmp wait-serial tablet-recording --timeout 40
  qmp tablet-drag 100 100 700 400 300
  touch "$VM_SHARE/dragged"
  qmp wait-serial tablet-checked --timeout 30
  qmp tablet-unplug
  qmp wait-serial tablet-gone --timeout 30
  qmp tablet-plug
}
