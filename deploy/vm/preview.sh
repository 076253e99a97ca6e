#!/usr/bin/env bash
# The kiosk without a panel: boots the virtual kiosk with a VNC display and a usb-tablet
# (the VNC mouse acts as one finger) running `KioskCards run` on your deck, prints how to
# connect, and stays up until Ctrl-C (or until the app exits). scripts/run.sh calls this on
# a machine with no connected DRM display.
#
# Usage: deploy/vm/preview.sh [--deck PATH] [--data DIR] [--vm-vnc HOST:PORT|unix:PATH]
#                             [--vm-display virtio|portrait|bochs] [--vm-command 'TEXT']
#                             [--vm-binary PATH] [--panel NAME] [APP ARGUMENTS...]
#   --deck PATH         the deck, any JSON file on this machine (default examples/onboarding.json,
#                       env KIOSK_DECK). Its folder is shared read-only with the virtual kiosk
#                       (9p at /deck), so its images come along, and an edit saved on this
#                       machine is on screen within about two seconds (the app polls a deck on 9p)
#   --data DIR          where the decisions come back (default .build/preview-data/DECKNAME):
#                       DIR/decisions.csv 2 s after each decision and at exit, and at exit
#                       DIR/decisions.sqlite3, so `KioskCards export --data DIR` and
#                       `KioskCards report --data DIR` work here. A later preview with the same
#                       DIR continues from its database. (The app's own database stays inside
#                       the virtual kiosk: SQLite cannot keep one on a 9p share.)
#   --vm-vnc ADDR       where VNC listens (default 127.0.0.1:5900; env KIOSK_PREVIEW_VNC);
#                       unix:PATH for a socket
#   --vm-display NAME   the panel (default virtio 800x480; portrait tells the app rotation 90)
#   --vm-command TEXT   what runs inside instead of the app (env KIOSK_PREVIEW_CMD), e.g.
#                       'KioskCards display-test' (then --deck and --data do nothing)
#   --vm-binary PATH    the app binary (default .build/release/KioskCards; built if missing)
#   --panel NAME        run as a known panel (the app's `panel` key: touch-display-2-7-landscape,
#                       pi-7inch, hdmi-10inch…; docs/OPERATIONS.md "Panels"): the virtual panel gets
#                       its pixels and the app its millimetres and rotation, so the preview is
#                       what that panel shows
#   APP ARGUMENTS       appended to the app's command line inside:
#                       KioskCards run --deck /deck/NAME --data <local> [--rotation 90] ARGUMENTS...
# Ctrl-C stops the app (SIGTERM: it flushes its store), copies the decisions to --data and
# powers the virtual kiosk off; a second Ctrl-C kills it at once.
# For deploy/vm/e2e.sh (scenario 60): --vm-share DIR --vm-serial FILE --vm-qmp SOCK
# --vm-stall S --vm-timeout S --vm-progress FILE --vm-initrd FILE (passed to run-vm.sh).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

vnc=${KIOSK_PREVIEW_VNC:-127.0.0.1:5900}
display=virtio
command=${KIOSK_PREVIEW_CMD:-}
binary="$REPO_ROOT/.build/release/KioskCards"
deck=${KIOSK_DECK:-}
data=""
panel=""
share="" initrd="" harness=()
app_args=()
while (($#)); do
  case $1 in
    --deck) deck=$2 && shift 2 ;;
    --deck=*) deck=${1#*=} && shift ;;
    --data) data=$2 && shift 2 ;;
    --data=*) data=${1#*=} && shift ;;
    --vm-vnc) vnc=$2 && shift 2 ;;
    --vm-display) display=$2 && shift 2 ;;
    --vm-command) command=$2 && shift 2 ;;
    --vm-binary) binary=$2 && shift 2 ;;
    --panel) panel=$2 && app_args+=(--panel "$2") && shift 2 ;;
    --vm-share) share=$2 && shift 2 ;;
    --vm-initrd) initrd=$2 && shift 2 ;;
    --vm-serial | --vm-qmp | --vm-stall | --vm-timeout | --vm-progress)
      harness+=("--${1#--vm-}" "$2") && shift 2
      ;;
    --vm-help | -h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' && exit 0 ;;
    *) app_args+=("$1") && shift ;;
  esac
done

if [[ $vnc == unix:* ]]; then
  vnc_arg=$vnc vnc_where="the socket ${vnc#unix:}"
else
  # QEMU's -vnc takes a display number (port 5900 + N); accept a port too.
  [[ $vnc =~ ^(.*):([0-9]+)$ ]] || vm_die "--vm-vnc wants HOST:PORT (e.g. 127.0.0.1:5900) or unix:PATH, not '$vnc'"
  vnc_host=${BASH_REMATCH[1]} vnc_port=${BASH_REMATCH[2]}
  ((vnc_port >= 5900)) || vnc_port=$((5900 + vnc_port))
  if (echo >"/dev/tcp/${vnc_host:-127.0.0.1}/$vnc_port") 2>/dev/null; then
    vm_die "something already listens on ${vnc_host}:$vnc_port — pick another with --vm-vnc HOST:PORT"
  fi
  vnc_arg="$vnc_host:$((vnc_port - 5900))" vnc_where="${vnc_host:-0.0.0.0}:$vnc_port"
fi
# A preset's native pixel size (the app turns picture and touch by the preset's rotation).
size=800x480
case $panel in
  "") ;;
  touch-display-2-7 | touch-display-2-7-landscape | touch-display-2-5 | touch-display-2-5-landscape) size=720x1280 ;;
  pi-7inch | pi-7inch-portrait) size=800x480 ;;
  hdmi-10inch | hdmi-10inch-portrait) size=1280x800 ;;
  hdmi-15inch | hdmi-15inch-portrait) size=1920x1080 ;;
  *) vm_die "unknown --panel '$panel' (see 'KioskCards run --help' for the names)" ;;
esac
[ -z "$panel" ] || [ "$display" = virtio ] || vm_die "--panel sets the display; leave out --vm-display $display"
case $display in
  virtio | preview) vm_display=preview ;;
  portrait | bochs) vm_display=$display ;;
  *) vm_die "unknown --vm-display '$display' (virtio, portrait, bochs)" ;;
esac

# The deck: a path as given (relative to here), else relative to the repo (examples/…).
qemu_args=()
deck_dir="" deck_name=""
if [ -z "$command" ]; then
  deck=${deck:-examples/onboarding.json}
  if [ ! -f "$deck" ] && [[ $deck != /* ]] && [ -f "$REPO_ROOT/$deck" ]; then deck=$REPO_ROOT/$deck; fi
  [ -e "$deck" ] || vm_die "no deck at '$deck' — give the path of a deck JSON file: --deck PATH"
  [ -f "$deck" ] || vm_die "'$deck' is not a file — give the path of a deck JSON file: --deck PATH"
  [ -r "$deck" ] || vm_die "cannot read '$deck' — check its permissions"
  deck=$(realpath "$deck")
  deck_dir=$(dirname "$deck") deck_name=$(basename "$deck")
  [[ $deck_dir != *,* ]] || vm_die "the deck's folder '$deck_dir' has a comma in its path, which QEMU's -virtfs cannot take; move the deck"
  if [ -z "$data" ]; then
    data="$REPO_ROOT/.build/preview-data/${deck_name%.json}"
  fi
  mkdir -p "$data" || vm_die "cannot make the data folder '$data' — give another with --data DIR"
  data=$(realpath "$data")
  [ -w "$data" ] || vm_die "cannot write to the data folder '$data' — give another with --data DIR"
  [[ $data != *,* ]] || vm_die "the data folder '$data' has a comma in its path, which QEMU's -virtfs cannot take"
  qemu_args+=(-virtfs "local,path=$deck_dir,mount_tag=deck,security_model=none,readonly=on,id=deck")
  qemu_args+=(-virtfs "local,path=$data,mount_tag=hostdata,security_model=none,id=hostdata")
fi

if [ ! -x "$binary" ]; then
  vm_log "building the release binary"
  (cd "$REPO_ROOT" && scripts/release-build.sh)
fi
"$VM_DIR/fetch-kernel.sh" >/dev/null
if [ -z "$initrd" ]; then
  initrd="$REPO_ROOT/.build/vm/preview-initramfs.cpio"
  "$VM_DIR/build-initramfs.sh" --binary "$binary" --out "$initrd" >/dev/null
fi

own_share=0
if [ -z "$share" ]; then
  share=$(mktemp -d "${TMPDIR:-/tmp}/kiosk-preview.XXXXXX")
  own_share=1
fi
mkdir -p "$share"
share=$(cd "$share" && pwd)
rm -f "$share/stop"
run_pid="" tail_pid="" killer_pid=""
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
  if [ -n "$run_pid" ]; then
    kill "$run_pid" 2>/dev/null || true
    wait "$run_pid" 2>/dev/null || true
  fi
  if [ -n "$tail_pid" ]; then kill "$tail_pid" 2>/dev/null || true; fi
  if [ -n "$killer_pid" ]; then kill "$killer_pid" 2>/dev/null || true; fi
  if ((own_share)); then rm -rf "$share"; fi
}
trap cleanup EXIT

if [ -z "$command" ]; then
  command=". /lib/kiosk/preview.sh; kiosk_preview $(printf '%q' "/deck/$deck_name") /hostdata"
  [ "$display" = portrait ] && command+=" --rotation 90"
  ((${#app_args[@]} == 0)) || command+=$(printf ' %q' "${app_args[@]}")
fi
printf '%s\n' "$command" >"$share/scenario.sh"

# In a session of its own: the terminal's Ctrl-C reaches only this script, which asks the
# guest to stop the app and hand its decisions back before the virtual kiosk powers off.
setsid "$VM_DIR/run-vm.sh" --display "$vm_display" --size "$size" --vnc "$vnc_arg" --tablet --timeout 0 --stall 0 \
  --initrd "$initrd" --share "$share" --scenario "$share/scenario.sh" "${harness[@]}" -- "${qemu_args[@]}" &
run_pid=$!

stopping=0
# shellcheck disable=SC2317  # called by the INT/TERM trap
stop() {
  if ((stopping)); then
    echo "Killing the virtual kiosk."
    exit 130
  fi
  stopping=1
  echo
  echo "Stopping: the app saves its decisions${data:+ to $data}, then the virtual kiosk powers off (Ctrl-C again kills it)."
  touch "$share/stop"
  # Under TCG on a busy machine the export takes seconds; never more than 3 minutes.
  (sleep 180 && kill "$run_pid" 2>/dev/null) &
  killer_pid=$!
}
trap stop INT TERM

cat <<EOF
Virtual kiosk ($display, 800x480) is starting; inside it runs:
  $command
EOF
if [ -n "$deck_dir" ]; then
  cat <<EOF
Deck: $deck
  (its folder is /deck inside, read-only; saved edits show within about two seconds)
Decisions come back to: $data (decisions.csv, and decisions.sqlite3 at exit)
EOF
fi
if [[ $vnc == unix:* ]]; then
  echo "VNC on $vnc_where."
else
  cat <<EOF
Connect a VNC viewer to $vnc_where, e.g.
  vncviewer ${vnc_host:-127.0.0.1}:$vnc_port
or from another machine, through ssh:
  ssh -N -L $vnc_port:127.0.0.1:$vnc_port $(id -un)@$(hostname -f 2>/dev/null || hostname)   then   vncviewer localhost:$vnc_port
EOF
fi
echo "The mouse is one finger: press, drag, release. Ctrl-C stops the virtual kiosk."
serial=$share/serial.log
for ((i = 0; i < ${#harness[@]}; i += 2)); do
  [ "${harness[i]}" = --serial ] && serial=${harness[i + 1]}
done
if ((${#harness[@]} == 0)); then
  echo "Console of the virtual kiosk:"
  for _ in $(seq 50); do
    [ -e "$serial" ] && break
    sleep 0.1
  done
  tail -n +1 -f --sleep-interval=0.1 "$serial" 2>/dev/null &
  tail_pid=$!
fi
status=0
while kill -0 "$run_pid" 2>/dev/null; do
  status=0
  wait "$run_pid" || status=$?
done
run_pid=""
sleep 0.3 # let tail print the console's last lines
echo "The virtual kiosk stopped (status $status)."
if [ -n "$data" ] && [ -s "$data/decisions.csv" ]; then
  echo "Decisions: $(($(wc -l <"$data/decisions.csv") - 1)) in $data/decisions.csv" \
    "(KioskCards export --data $data, KioskCards report --data $data --out report.html)"
fi
exit "$status"
