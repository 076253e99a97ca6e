# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# The portrait configuration: the same 800x480 virtio panel, and the guest is told to turn the
# picture 90 degrees (KIOSK_ROTATION, for the app's rotation setting).
VM_DISPLAY=portrait

guest() {
  kiosk_check "the guest is told rotation 90" test "$KIOSK_ROTATION" = 90
  kiosk_wait_for /dev/dri/card0 10
  kiosk_check "the panel stays 800x480 (the app turns the picture)" \
    test "$(kiosk_connected_mode card0)" = 800x480
}
