# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# A panel preset on its own pixels: the virtio panel is a Raspberry Pi Touch Display 2
# (720x1280, natively portrait) and the app runs with `--panel touch-display-2-7-landscape`,
# which turns the picture and the touches 90° and sets the panel's 88x155 mm together. The
# injector touches the panel in its own (portrait) pixels; the stack checks of
# 50-stack-virtio (lib/stack.sh) then show the touches land where the turned picture is: the
# card follows a slow drag and springs back, a swipe and a flick dismiss it the way they go,
# the database holds the five decisions in order. Each step's scanout is compared with
# `render` of the same gesture, and the first frame also with `render --panel` of the preset.
VM_DISPLAY=portrait
VM_SIZE=720x1280
VM_TIMEOUT=150
VM_SOLO=1 # the slow drag must spring back: beside another VM a busy host made it a swipe
STACK_PANEL=touch-display-2-7-landscape
# Known, not yet explained: at this panel's 1.385 px/pt the empty state's "Alle Karten
# erledigt!" differs from `render` in a few glyphs (139 pixels in x 304-326, y 604-702 of the
# screendump, the same in every run; 2 of 3280 cells off by 12, every other screen within
# the default 10): that one check allows 14 per channel.
STACK_EMPTY_TOLERANCE=14

guest() {
  . /share/lib/app.sh
  . /share/lib/stack.sh
  kiosk_check "the guest is told rotation 90" test "$KIOSK_ROTATION" = 90
  kiosk_wait_for /dev/dri/card0 10
  kiosk_check "the panel is the Touch Display 2's 720x1280 (the app turns the picture)" \
    test "$(kiosk_connected_mode card0)" = 720x1280
  stack_guest
  kiosk_check "the app took the preset's millimetres and turn (log: $(grep -m1 ' px/pt' "$KIOSK_OUT/app.log"))" \
    grep -q 'panel 88x155 mm, rotation 90' "$KIOSK_OUT/app.log"
}

host() {
  . "$VM_DIR/scenarios/lib/app.sh"
  . "$VM_DIR/scenarios/lib/stack.sh"
  stack_host
}
