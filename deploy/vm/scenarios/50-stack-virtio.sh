# shellcheck shell=sh disable=SC2034,SC2317,SC1091  # VM_* read by e2e.sh; functions run indirectly; lib/ is in /share
# The card stack on virtio-gpu, driven by a real uinput touchscreen: first card, a slow drag
# that springs back, a 200 pt swipe and a quick 80 pt flick that dismiss, every card swiped
# to the empty state, the decisions in the database, SIGTERM giving the console back — the
# scanout checked against the app's own headless renderer (lib/stack.sh). Also: an idle app
# uses no CPU.
VM_DISPLAY=virtio
VM_SOLO=1 # the slow drag must spring back: beside another VM a busy host made it a swipe (seen on 53)

guest() {
  . /share/lib/app.sh
  . /share/lib/stack.sh
  STACK_IDLE=1
  stack_guest
}

host() {
  . "$VM_DIR/scenarios/lib/app.sh"
  . "$VM_DIR/scenarios/lib/stack.sh"
  stack_host
}
