#!/bin/sh
# shellcheck shell=sh
# /init of the virtual kiosk (busybox sh, PID 1). Mounts the kernel filesystems, loads the
# modules build-initramfs.sh listed (dependencies first), mounts the 9p shares, runs the
# scenario, records its exit status and powers off.
#
# Kernel command line it reads (all optional):
#   kiosk.display=virtio|bochs|portrait|preview|vkms   exported as KIOSK_DISPLAY (vkms: also
#                           loads the modules in /etc/kiosk/vkms-modules, vkms.ko last)
#   kiosk.rotation=0|90|180|270                    exported as KIOSK_ROTATION
#   kiosk.scenario=PATH     script to run (default /share/scenario.sh)
#   kiosk.run=BASE64        a script given inline instead (base64 of its text)
#   kiosk.shell=1           on the serial console, a shell after the scenario instead of poweroff
# The scenario is sourced in a subshell with `set -e` after /lib/kiosk/guest.sh; if it defines
# a function `guest`, that is called. Its exit status goes to /share/status and to the console
# as "KIOSK-VM: exit N".
export PATH=/usr/bin:/bin HOME=/root TERM=linux
mount -t devtmpfs devtmpfs /dev
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs tmpfs /run
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts

say() { echo "KIOSK-VM: $*"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }

KIOSK_DISPLAY=virtio
KIOSK_ROTATION=0
scenario=/share/scenario.sh
inline=""
shell=0
read -r cmdline </proc/cmdline
for arg in $cmdline; do
  case $arg in
    kiosk.display=*) KIOSK_DISPLAY=${arg#*=} ;;
    kiosk.rotation=*) KIOSK_ROTATION=${arg#*=} ;;
    kiosk.scenario=*) scenario=${arg#*=} ;;
    kiosk.run=*) inline=${arg#*=} ;;
    kiosk.shell=*) shell=${arg#*=} ;;
  esac
done
export KIOSK_DISPLAY KIOSK_ROTATION

release=$(uname -r)
t0=$(uptime_s)
while read -r module; do
  insmod "/lib/modules/$release/$module" 2>/dev/null || say "insmod $module failed"
done </etc/kiosk/modules
# vkms (built by build-vkms.sh, packed by build-initramfs.sh) only for its display: it would
# be a second DRM device beside virtio-gpu or bochs otherwise.
if [ "$KIOSK_DISPLAY" = vkms ]; then
  if [ -r /etc/kiosk/vkms-modules ]; then
    while read -r module; do
      name=${module##*/}
      name=$(echo "${name%.ko}" | tr - _)
      [ -d "/sys/module/$name" ] && continue
      insmod "/lib/modules/$release/$module" || say "insmod $module failed"
    done </etc/kiosk/vkms-modules
  else
    say "no vkms.ko in this initramfs (deploy/vm/build-vkms.sh, then build-initramfs.sh)"
  fi
fi
say "modules loaded in $(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.2f", b - a }') s"

# 9p shares appear as virtio devices carrying a mount tag.
for tagfile in /sys/bus/virtio/drivers/9pnet_virtio/*/mount_tag; do
  [ -e "$tagfile" ] || continue
  tag=$(tr -d '\0' <"$tagfile")
  opts=trans=virtio,version=9p2000.L,msize=262144
  # share (the scenario's folder) and hostdata (the preview's --data folder) are read-write.
  case $tag in share | hostdata) ;; *) opts=$opts,ro ;; esac
  mkdir -p "/$tag"
  mount -t 9p -o "$opts" "$tag" "/$tag" || say "mount 9p $tag failed"
done

export KIOSK_OUT=/share/out
if grep -q " /share " /proc/mounts; then
  mkdir -p "$KIOSK_OUT"
else
  KIOSK_OUT=/tmp/out
  mkdir -p "$KIOSK_OUT"
fi
if [ -n "$inline" ]; then
  scenario=/tmp/inline-scenario.sh
  echo "$inline" | base64 -d >"$scenario"
fi
[ -e /dev/tty1 ] && printf '\033[2J\033[HKioskCards virtual kiosk - %s display\n' "$KIOSK_DISPLAY" >/dev/tty1

say "userspace at $(uptime_s) s, display $KIOSK_DISPLAY, rotation $KIOSK_ROTATION"
cd /opt/kioskcards || cd /
if [ -r "$scenario" ]; then
  say "scenario $scenario"
  (
    set -e
    # shellcheck source=guest.sh
    . /lib/kiosk/guest.sh
    # shellcheck disable=SC1090
    . "$scenario"
    if command -v guest >/dev/null 2>&1; then guest; fi
  )
  status=$?
else
  say "no scenario at $scenario"
  status=127
fi
dmesg >"$KIOSK_OUT/dmesg.txt" 2>/dev/null
if grep -q " /share " /proc/mounts; then
  echo "$status" >/share/status
  sync
fi
say "exit $status at $(uptime_s) s"
if [ "$shell" = 1 ]; then
  setsid cttyhack sh
fi
grep -q " /share " /proc/mounts && umount /share
poweroff -f
