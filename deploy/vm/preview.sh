#!/usr/bin/env bash
# The kiosk without a panel: boots the virtual kiosk with a VNC display and a usb-tablet
# (the VNC mouse acts as one finger) running `KioskCards run`, prints how to connect, and
# stays up until Ctrl-C (or until the app exits). scripts/run.sh calls this on a machine
# with no connected DRM display.
#
# Usage: deploy/vm/preview.sh [--vm-vnc HOST:PORT] [--vm-display virtio|portrait|bochs]
#                             [--vm-command 'TEXT'] [--vm-binary PATH] [APP ARGUMENTS...]
#   --vm-vnc HOST:PORT  where VNC listens (default 127.0.0.1:5900; env KIOSK_PREVIEW_VNC)
#   --vm-display NAME   the panel (default virtio 800x480; portrait tells the app rotation 90)
#   --vm-command TEXT   what runs inside instead of the app (env KIOSK_PREVIEW_CMD), e.g.
#                       'KioskCards display-test'
#   --vm-binary PATH    the app binary (default .build/release/KioskCards; built if missing)
#   APP ARGUMENTS       appended to the default command:
#                       KioskCards run --deck <deck> [--rotation 90] ARGUMENTS...
#   env KIOSK_DECK      the deck: a path relative to the repo (default examples/onboarding.json)
#                       or any file on this machine (passed in through the share)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

vnc=${KIOSK_PREVIEW_VNC:-127.0.0.1:5900}
display=virtio
command=${KIOSK_PREVIEW_CMD:-}
binary="$REPO_ROOT/.build/release/KioskCards"
app_args=()
while (($#)); do
  case $1 in
    --vm-vnc) vnc=$2 && shift 2 ;;
    --vm-display) display=$2 && shift 2 ;;
    --vm-command) command=$2 && shift 2 ;;
    --vm-binary) binary=$2 && shift 2 ;;
    --vm-help | -h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' && exit 0 ;;
    *) app_args+=("$1") && shift ;;
  esac
done

# QEMU's -vnc takes a display number (port 5900 + N); accept a port too.
[[ $vnc =~ ^(.*):([0-9]+)$ ]] || vm_die "--vm-vnc wants HOST:PORT (e.g. 127.0.0.1:5900), not '$vnc'"
vnc_host=${BASH_REMATCH[1]} vnc_port=${BASH_REMATCH[2]}
((vnc_port >= 5900)) || vnc_port=$((5900 + vnc_port))
case $display in
  virtio | preview) vm_display=preview ;;
  portrait | bochs) vm_display=$display ;;
  *) vm_die "unknown --vm-display '$display' (virtio, portrait, bochs)" ;;
esac
if (echo >"/dev/tcp/${vnc_host:-127.0.0.1}/$vnc_port") 2>/dev/null; then
  vm_die "something already listens on ${vnc_host}:$vnc_port — pick another with --vm-vnc HOST:PORT"
fi

if [ ! -x "$binary" ]; then
  vm_log "building the release binary"
  (cd "$REPO_ROOT" && swift build -c release --static-swift-stdlib --product KioskCards)
fi
"$VM_DIR/fetch-kernel.sh" >/dev/null
initrd="$REPO_ROOT/.build/vm/preview-initramfs.cpio"
"$VM_DIR/build-initramfs.sh" --binary "$binary" --out "$initrd" >/dev/null

share=$(mktemp -d "${TMPDIR:-/tmp}/kiosk-preview.XXXXXX")
run_pid="" tail_pid=""
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
  if [ -n "$run_pid" ]; then
    kill "$run_pid" 2>/dev/null || true
    wait "$run_pid" 2>/dev/null || true
  fi
  if [ -n "$tail_pid" ]; then kill "$tail_pid" 2>/dev/null || true; fi
  rm -rf "$share"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "$command" ]; then
  deck=${KIOSK_DECK:-examples/onboarding.json}
  if [ -f "$deck" ] && [[ $deck == /* || ! -f "$REPO_ROOT/$deck" ]]; then
    # A deck outside the repo's examples reaches the guest through the share.
    cp "$deck" "$share/deck.json"
    deck=/share/deck.json
  fi
  command="KioskCards run --deck $(printf '%q' "$deck")"
  [ "$display" = portrait ] && command+=" --rotation 90"
  ((${#app_args[@]} == 0)) || command+=$(printf ' %q' "${app_args[@]}")
fi
printf '%s\n' "$command" >"$share/scenario.sh"

vnc_arg="$vnc_host:$((vnc_port - 5900))"
"$VM_DIR/run-vm.sh" --display "$vm_display" --vnc "$vnc_arg" --tablet --timeout 0 \
  --initrd "$initrd" --share "$share" --scenario "$share/scenario.sh" &
run_pid=$!

cat <<EOF
Virtual kiosk ($display, 800x480) is starting; inside it runs:
  $command
Connect a VNC viewer to ${vnc_host:-0.0.0.0}:$vnc_port, e.g.
  vncviewer ${vnc_host:-127.0.0.1}:$vnc_port
or from another machine, through ssh:
  ssh -N -L $vnc_port:127.0.0.1:$vnc_port $(id -un)@$(hostname -f 2>/dev/null || hostname)   then   vncviewer localhost:$vnc_port
The mouse is one finger: press, drag, release. Ctrl-C stops the virtual kiosk.
Console of the virtual kiosk:
EOF
for _ in $(seq 50); do
  [ -e "$share/serial.log" ] && break
  sleep 0.1
done
tail -n +1 -f --sleep-interval=0.1 "$share/serial.log" 2>/dev/null &
tail_pid=$!
set +e
wait "$run_pid"
status=$?
set -e
run_pid=""
sleep 0.3 # let tail print the console's last lines
echo "The virtual kiosk stopped (status $status)."
exit "$status"
