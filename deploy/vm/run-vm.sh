#!/usr/bin/env bash
# Boots the virtual kiosk: Debian's kernel + the initramfs under qemu-system-x86_64 (TCG, one
# CPU), runs one scenario inside and exits with its status.
#
# Usage: deploy/vm/run-vm.sh [options] [-- extra qemu arguments]
#   --display NAME   virtio (default: virtio-gpu 800x480) | bochs (VGA device, bochs-drm, 800x480)
#                    | cirrus (cirrus-vga, the kernel's cirrus driver: 16-bit preferred, RGB565
#                      scanout, its own modes; --size is ignored)
#                    | portrait (virtio 800x480, guest told rotation 90) | preview (virtio + VNC + usb-tablet)
#                    | vkms (no display device at all; the guest loads vkms.ko, a virtual KMS driver
#                      with a 60 Hz vblank and a 1024x768 "Virtual-1" connector — nothing to see in
#                      a screendump; needs build-vkms.sh before build-initramfs.sh)
#   --size WxH       scanout size (default 800x480; vkms ignores it)
#   --scenario FILE  script run inside (copied to the share as scenario.sh; see guest/init.sh)
#   --command TEXT   a one-line script run inside instead (passed on the kernel command line)
#   --share DIR      host folder mounted read-write at /share (virtio-9p); default: a temp dir.
#                    The guest writes DIR/status, and KIOSK_OUT=/share/out is DIR/out.
#   --testdata DIR   host folder mounted read-only at /testdata (default: the checkout's
#                    Tests/Fixtures, with the touch recordings in touch/)
#   --tablet         add a usb-tablet (xhci) — an absolute pointer QMP input-send-event drives
#   --vnc ADDR       VNC display, e.g. 127.0.0.1:0 (= port 5900); implied by --display preview
#   --qmp SOCK       QMP unix socket (default DIR/qmp.sock)
#   --serial FILE    serial console log (default DIR/serial.log)
#   --stall SEC      kill the VM when it makes no progress for SEC seconds — no new serial
#                    output and no growth of a --progress file —, exit 123 (default 60; 0 = never)
#   --progress FILE  another file whose growth counts as progress (e2e.sh: the host checks' log)
#   --timeout SEC    hard cap: kill the VM after SEC seconds even while it makes progress,
#                    exit 124 (default 600; 0 = never)
#   --memory MB      guest memory (default 512)
#   --append ARGS    more kernel command line
#   --kernel FILE / --initrd FILE   (defaults: the cached kernel — its vmlinux when there is
#                    one, booted through PVH — and .build/vm/initramfs.cpio)
#   --shell          after the scenario, a shell on the serial console (use with --console)
#   --console        serial console on this terminal instead of the log file (interactive)
#   env KIOSK_VM_ACCEL   qemu accelerator (default tcg; kvm where it works)
# Prints "run-vm: userspace after N s" and "run-vm: done after N s, status S" on stderr.
# Exit status: the scenario's, 123 no progress, 124 hard cap, 125 when the VM stopped without
# reporting one. The reason is logged: "no progress for 60 s after 'LAST SERIAL LINE'".
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

display=virtio size=800x480 scenario="" command="" share="" testdata="" tablet=0 vnc=""
qmp="" serial="" timeout=600 stall=60 progress_files=() memory=512 append="" kernel="" initrd="" shell=0 console=0
while (($#)); do
  case $1 in
    --display) display=$2 && shift 2 ;;
    --size) size=$2 && shift 2 ;;
    --scenario) scenario=$2 && shift 2 ;;
    --command) command=$2 && shift 2 ;;
    --share) share=$2 && shift 2 ;;
    --testdata) testdata=$2 && shift 2 ;;
    --tablet) tablet=1 && shift ;;
    --vnc) vnc=$2 && shift 2 ;;
    --qmp) qmp=$2 && shift 2 ;;
    --serial) serial=$2 && shift 2 ;;
    --timeout) timeout=$2 && shift 2 ;;
    --stall) stall=$2 && shift 2 ;;
    --progress) progress_files+=("$2") && shift 2 ;;
    --memory) memory=$2 && shift 2 ;;
    --append) append=$2 && shift 2 ;;
    --kernel) kernel=$2 && shift 2 ;;
    --initrd) initrd=$2 && shift 2 ;;
    --shell) shell=1 && shift ;;
    --console) console=1 && shift ;;
    --) shift && break ;;
    -h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' && exit 0 ;;
    *) vm_die "unknown option '$1' (see --help)" ;;
  esac
done
[[ $size =~ ^([0-9]+)x([0-9]+)$ ]] || vm_die "--size must be WIDTHxHEIGHT, not '$size'"
width=${BASH_REMATCH[1]} height=${BASH_REMATCH[2]}

kernel=${kernel:-$(vm_kernel_image)}
initrd=${initrd:-$VM_BUILD/initramfs.cpio}
[ -f "$kernel" ] || vm_die "no kernel at $kernel — run deploy/vm/fetch-kernel.sh"
[ -f "$initrd" ] || vm_die "no initramfs at $initrd — run deploy/vm/build-initramfs.sh"
if [ -z "$share" ]; then
  share=$(mktemp -d "${TMPDIR:-/tmp}/kiosk-vm.XXXXXX")
fi
mkdir -p "$share"
share=$(cd "$share" && pwd)
qmp=${qmp:-$share/qmp.sock}
serial=${serial:-$share/serial.log}
rm -f "$share/status" "$qmp"
[ -n "$testdata" ] || testdata=$(vm_testdata_dir)

rotation=0
case $display in
  virtio) gpu=(-device "virtio-gpu-pci,xres=$width,yres=$height") ;;
  bochs) gpu=(-device "VGA,xres=$width,yres=$height,edid=on") ;;
  portrait) gpu=(-device "virtio-gpu-pci,xres=$width,yres=$height") rotation=90 ;;
  vkms) gpu=() ;;
  cirrus) gpu=(-device cirrus-vga) ;;
  preview)
    gpu=(-device "virtio-gpu-pci,xres=$width,yres=$height")
    tablet=1 vnc=${vnc:-127.0.0.1:0}
    ;;
  *) vm_die "unknown --display '$display' (virtio, bochs, cirrus, portrait, preview, vkms)" ;;
esac

# cryptomgr.notests: the crypto self-tests cost ~0.35 s of every boot under TCG. no_timer_check:
# on a loaded host the emulated CPU can be too slow for the boot's timer-IRQ test, which then
# panics ("IO-APIC + timer doesn't work"); QEMU's timer is known to work.
# KIOSK_VM_ARCH=arm64: the 'virt' board (PL011 serial, PCIe for virtio-gpu and 9p); no VGA,
# so no bochs or cirrus; vkms as on amd64 (build-vkms.sh cross-compiles it).
if [ "$VM_ARCH" = arm64 ]; then
  qemu=(qemu-system-aarch64 -M virt -cpu cortex-a72) serial_console=ttyAMA0
  case $display in
    bochs | cirrus) vm_die "--display $display is not available for arm64 (virtio, portrait, preview, vkms)" ;;
  esac
else
  qemu=(qemu-system-x86_64) serial_console=ttyS0
fi
cmdline="console=$serial_console quiet panic=-1 no_timer_check cryptomgr.notests kiosk.display=$display kiosk.rotation=$rotation $append"
if [ -n "$scenario" ]; then
  [ -r "$scenario" ] || vm_die "cannot read scenario $scenario"
  [ "$(cd "$(dirname "$scenario")" && pwd)/${scenario##*/}" = "$share/scenario.sh" ] ||
    cp "$scenario" "$share/scenario.sh"
fi
if [ -n "$command" ]; then
  cmdline+=" kiosk.run=$(printf '%s\n' "$command" | base64 -w0)"
  ((${#cmdline} < 2000)) || vm_die "--command is too long for the kernel command line; use --scenario"
fi
[ "$shell" = 1 ] && cmdline+=" kiosk.shell=1"

args=(
  -nodefaults -no-user-config -no-reboot
  -accel "${KIOSK_VM_ACCEL:-tcg}" -smp 1 -m "$memory"
  -kernel "$kernel" -initrd "$initrd" -append "$cmdline"
  -vga none "${gpu[@]}"
  -qmp "unix:$qmp,server=on,wait=off"
  -virtfs "local,path=$share,mount_tag=share,security_model=none,id=share"
)
if [ "$console" = 1 ]; then
  args+=(-serial mon:stdio)
else
  : >"$serial"
  args+=(-chardev "file,id=ser0,path=$serial" -serial chardev:ser0)
fi
[ -n "$testdata" ] && args+=(-virtfs "local,path=$testdata,mount_tag=testdata,security_model=none,readonly=on,id=testdata")
[ "$tablet" = 1 ] && args+=(-device "qemu-xhci,id=xhci" -device "usb-tablet,bus=xhci.0,id=tablet")
if [ -n "$vnc" ]; then
  args+=(-display none -vnc "$vnc")
else
  args+=(-display none)
fi
args+=("$@")

t0=$(vm_now_ms)
if [ "$console" = 1 ]; then
  set +e
  "${qemu[@]}" "${args[@]}"
  set -e
else
  "${qemu[@]}" "${args[@]}" &
  pid=$!
  trap 'kill "$pid" 2>/dev/null || true' EXIT
  trap 'exit 130' INT TERM
  seen_userspace=0
  # Progress: the serial log (kernel, guest checks, the app's log) or a --progress file grew.
  progress_size() {
    local total=0 f n
    for f in "$serial" "${progress_files[@]}"; do
      n=$(stat -c %s "$f" 2>/dev/null || echo 0)
      total=$((total + n))
    done
    echo "$total"
  }
  # The last non-empty serial line, for the no-progress message (short, printable).
  last_serial_line() {
    tr -d '\r' <"$serial" 2>/dev/null | grep -v '^[[:space:]]*$' | tail -n1 | cut -c1-120 | tr -c '[:print:]\n' '?'
  }
  last_size=-1 last_progress=$(vm_now_ms) tick=0
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$seen_userspace" = 0 ] && grep -q 'KIOSK-VM: userspace' "$serial" 2>/dev/null; then
      seen_userspace=1
      vm_log "userspace after $(vm_elapsed "$t0" "$(vm_now_ms)") s"
    fi
    now=$(vm_now_ms)
    if ((tick++ % 5 == 0)); then
      size=$(progress_size)
      if [ "$size" != "$last_size" ]; then
        last_size=$size last_progress=$now
      fi
    fi
    if [ "$stall" != 0 ] && ((now - last_progress > stall * 1000)); then
      vm_log "no progress for $stall s after '$(last_serial_line)' (no new serial output or check); killing the VM after $(vm_elapsed "$t0" "$now") s (serial log: $serial)"
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
      exit 123
    fi
    if [ "$timeout" != 0 ] && ((now - t0 > timeout * 1000)); then
      vm_log "hard cap: the VM ran longer than $timeout s although it kept making progress (last: '$(last_serial_line)'); killing it (serial log: $serial)"
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
      exit 124
    fi
    sleep 0.1
  done
  if [ "$seen_userspace" = 0 ] && grep -q 'KIOSK-VM: userspace' "$serial" 2>/dev/null; then
    vm_log "userspace after $(vm_elapsed "$t0" "$(vm_now_ms)") s"
  fi
  set +e
  wait "$pid"
  qemu_status=$?
  set -e
  trap - EXIT
  ((qemu_status == 0)) || vm_log "qemu exited with status $qemu_status"
fi

status=125
if [ -s "$share/status" ]; then
  status=$(cat "$share/status")
elif [ -f "$serial" ] && grep -q 'KIOSK-VM: exit' "$serial"; then
  status=$(sed -n 's/.*KIOSK-VM: exit \([0-9]*\).*/\1/p' "$serial" | tail -n1)
fi
vm_log "done after $(vm_elapsed "$t0" "$(vm_now_ms)") s, status $status"
exit "$status"
