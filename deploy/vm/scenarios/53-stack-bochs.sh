# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# The stack checks of 50-stack-virtio (lib/stack.sh) on bochs-drm (QEMU's std VGA: another
# KMS driver, dumb buffers in VRAM, no EDID size, so another scale).
VM_DISPLAY=bochs
VM_SOLO=1 # the slow drag must spring back: beside another VM a busy host made it a swipe (seen on 53)

guest() {
  . /share/lib/app.sh
  . /share/lib/stack.sh
  stack_guest
}

host() {
  . "$VM_DIR/scenarios/lib/app.sh"
  . "$VM_DIR/scenarios/lib/stack.sh"
  stack_host
}
