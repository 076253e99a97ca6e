# shellcheck shell=sh
# The DRM driver checks of scenarios 20 and 21: /dev/dri/card0 is driven by $DRIVER with a
# connected 800x480 connector, and the scanout the host captures is the guest's framebuffer:
# the text console painted blue reads back as VGA blue.

drm_guest() {
  want=${DRIVER:?the scenario sets DRIVER}
  kiosk_wait_for /dev/dri/card0 10
  driver=$(kiosk_drm_driver card0)
  kiosk_check "card0 is driven by $want (is: $driver)" test "$driver" = "$want"
  kiosk_check "its connector is connected at 800x480" test "$(kiosk_connected_mode card0)" = 800x480
  # The console (fbcon on the DRM fbdev emulation) in blue: ESC[44m sets the background and
  # ESC[2J clears the screen with it.
  printf '\033[44m\033[2J\033[HKioskCards virtual kiosk\n' >/dev/tty1
  kiosk_mark console-blue
  kiosk_wait_host probed 30
}

drm_host() {
  qmp wait-serial console-blue --timeout 30
  qmp expect-color --within 5 --save "$VM_OUT/console.png" 400 300 '#0000aa' 8
  touch "$VM_SHARE/probed"
}
