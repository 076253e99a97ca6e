# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# The RGB565 scanout on a real KMS driver: `run --pixel-format rgb565` on QEMU's cirrus-vga
# (the kernel's cirrus driver takes RGB565 and prefers 16 bits; virtio-gpu takes XRGB8888 only,
# and vkms has nothing to screendump). The app logs the RGB565 scanout; the screen is checked
# against `KioskCards render --pixel-format rgb565` of the same deck, first by cell averages
# (where the cards are) and then pixel by pixel (every pixel an RGB565 value, and the dithered
# 5/6/5 bits those of the headless picture) — at the first frame, with a visitor present, and
# after a 200 pt swipe. SIGTERM gives the console back with exit status 0.
VM_DISPLAY=cirrus
VM_TIMEOUT=150
VM_SOLO=1 # pixel-by-pixel checks of a settled screen; nothing else on the host's two cores

RGB565_DECK=examples/onboarding.json

guest() {
  . /share/lib/app.sh
  app_start --deck "$RGB565_DECK" --idle-timeout 10m --pixel-format rgb565
  app_wait_log 'first frame on screen' 1 60
  kiosk_check "the display scans out RGB565 on cirrus" grep -q 'display: .*(cirrus).* RGB565 rotation' "$APP_LOG"
  app_geometry
  kiosk_mark "rgb565-first-frame $APP_GEOMETRY"
  kiosk_wait_host checked-first 90
  # A visitor is here: the attract nudges and the attract line stop.
  app_inject "tap $(app_pt 20 20)"
  kiosk_mark rgb565-visitor-here
  kiosk_wait_host checked-home 90
  app_inject "drag $(app_at 0 0) $(app_at 200 0) 400"
  app_wait_log "decision: " 1 20
  kiosk_mark rgb565-swiped-200
  kiosk_wait_host checked-next 90
  app_stop
  kiosk_check "SIGTERM: the app exits with status 0 (is: $APP_STATUS)" test "$APP_STATUS" = 0
  app_figures "rgb565 cirrus"
}

host() {
  . "$VM_DIR/scenarios/lib/app.sh"
  line=$(qmp wait-serial rgb565-first-frame --timeout 90)
  host_app_geometry "$line"
  deck="$REPO_ROOT/$RGB565_DECK"
  host_render first "$deck" --pixel-format rgb565
  host_render first-xrgb8888 "$deck"
  host_render next "$deck" --pixel-format rgb565 --gesture "release 200 0" --at 3000
  host_differ first next
  # The pixel check can fail: the XRGB8888 picture of the same screen is not RGB565 (its
  # "FAIL" line in host.log is this check working).
  echo "the pixel check on the XRGB8888 picture, which must fail:"
  # shellcheck disable=SC2086  # the rectangle's four numbers are four arguments
  if python3 "$VM_DIR/scenarios/lib/screen.py" expect-rgb565 "$VM_OUT/expected-first.png" \
    --image "$VM_OUT/expected-first-xrgb8888.png" --exclude $HOST_ATTRACT; then
    echo "FAIL the RGB565 check passes on an XRGB8888 picture"
    exit 1
  fi
  host_like first --within 10
  touch "$VM_SHARE/checked-first"
  qmp wait-serial rgb565-visitor-here --timeout 60
  host_like first --within 10 --save "$VM_OUT/visitor-here.png"
  rgb565_exact first
  touch "$VM_SHARE/checked-home"
  qmp wait-serial rgb565-swiped-200 --timeout 60
  host_like next --within 10
  rgb565_exact next
  touch "$VM_SHARE/checked-next"
}

# The screen is RGB565 and has expected-NAME.png's dithered bits (all but the attract line).
rgb565_exact() {
  # shellcheck disable=SC2086  # the rectangle's four numbers are four arguments
  python3 "$VM_DIR/scenarios/lib/screen.py" expect-rgb565 "$VM_OUT/expected-$1.png" \
    --exclude $HOST_ATTRACT --within 15 --save "$VM_OUT/$1-rgb565.png"
}
