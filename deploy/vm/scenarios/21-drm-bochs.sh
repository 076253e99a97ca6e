# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# bochs-drm (QEMU std VGA) gives /dev/dri/card0 with a connected 800x480 connector, and the scanout the host
# captures is the guest's framebuffer (lib/drm.sh).
VM_DISPLAY=bochs
DRIVER=bochs-drm

guest() {
  . /share/lib/drm.sh
  drm_guest
}

host() {
  . "$VM_DIR/scenarios/lib/drm.sh"
  drm_host
}
