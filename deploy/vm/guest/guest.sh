# shellcheck shell=sh
# Helpers for scenario scripts inside the virtual kiosk (sourced by /init before the scenario).
# Scenarios run with `set -e`: any failing command fails the scenario.

# Prints a marker line the host can wait for: `qmp.py wait-serial "TEXT"`.
kiosk_mark() { echo "KIOSK-MARK: $*" >/dev/console; }

# Waits until PATH exists (default 10 s). Fails with a message naming it otherwise.
kiosk_wait_for() {
  _path=$1 _ticks=$((${2:-10} * 10))
  while [ ! -e "$_path" ]; do
    _ticks=$((_ticks - 1))
    if [ "$_ticks" -le 0 ]; then
      echo "kiosk_wait_for: $_path did not appear within ${2:-10} s" >&2
      return 1
    fi
    usleep 100000
  done
}

# Prints /dev/input/eventN of the first input device whose name contains TEXT, waiting up to
# SECONDS (default 10).
kiosk_input_device() {
  _text=$1 _ticks=$((${2:-10} * 10))
  while :; do
    for _n in /sys/class/input/event*/device/name; do
      [ -r "$_n" ] || continue
      case $(cat "$_n") in
        *"$_text"*)
          _ev=${_n%/device/name}
          _ev=/dev/input/${_ev##*/}
          kiosk_wait_for "$_ev" 5 && echo "$_ev" && return 0
          ;;
      esac
    done
    _ticks=$((_ticks - 1))
    if [ "$_ticks" -le 0 ]; then
      echo "kiosk_input_device: no input device named '*$_text*' within ${2:-10} s" >&2
      cat /proc/bus/input/devices >&2
      return 1
    fi
    usleep 100000
  done
}

# Runs CMD... every 0.1 s until it succeeds, for up to SECONDS; fails with a message after.
kiosk_wait_until() {
  _secs=$1 _ticks=$(($1 * 10))
  shift
  until "$@"; do
    _ticks=$((_ticks - 1))
    if [ "$_ticks" -le 0 ]; then
      echo "kiosk_wait_until: '$*' did not succeed within $_secs s" >&2
      return 1
    fi
    usleep 100000
  done
}

# Waits until process PID has FILE open (e.g. a recorder its input device: from then on no
# event is lost), default 10 s.
kiosk_wait_open() {
  kiosk_wait_until "${3:-10}" _kiosk_has_open "$1" "$2"
}

_kiosk_has_open() {
  for _fd in /proc/"$1"/fd/*; do
    [ "$(readlink "$_fd" 2>/dev/null)" = "$2" ] && return 0
  done
  return 1
}

# Waits until the host creates /share/NAME (host: `touch "$VM_SHARE/NAME"`), default 30 s.
kiosk_wait_host() {
  kiosk_wait_for "/share/$1" "${2:-30}"
}

# Runs a check: prints "ok DESC" or "FAIL DESC" and returns the command's status.
kiosk_check() {
  _desc=$1
  shift
  if "$@"; then
    echo "ok   $_desc"
  else
    _rc=$?
    echo "FAIL $_desc (status $_rc)"
    return "$_rc"
  fi
}

# True when STRING matches the shell pattern GLOB (for kiosk_check).
kiosk_matches() {
  # shellcheck disable=SC2254  # the pattern is meant to be a pattern
  case $1 in $2) return 0 ;; esac
  return 1
}

# Returns when vkms is loaded. Skips the scenario (exit 77) when the initramfs has no vkms.ko;
# fails when it has one that did not load.
kiosk_need_vkms() {
  [ ! -d /sys/module/vkms ] || return 0
  if [ -r /etc/kiosk/vkms-modules ]; then
    echo "FAIL: vkms.ko is in the initramfs but did not load:"
    dmesg | grep -i vkms || true
    return 1
  fi
  echo "skip: no vkms.ko in the initramfs (deploy/vm/build-vkms.sh did not build one)"
  exit 77
}

# Prints vkms's DRM card (card0, ...). vkms binds no driver to its platform device; the card's
# parent device is named vkms.
kiosk_vkms_card() {
  for _c in /sys/class/drm/card[0-9]; do
    _dev=$(readlink -f "$_c/device")
    [ "${_dev##*/}" != vkms ] || echo "${_c##*/}"
  done
}

# Prints the first (preferred) mode, e.g. 800x480, of the first connected connector of CARD
# (default card0); fails when none is connected.
kiosk_connected_mode() {
  for _c in /sys/class/drm/"${1:-card0}"-*; do
    if grep -q '^connected' "$_c/status" 2>/dev/null; then
      head -n1 "$_c/modes"
      return 0
    fi
  done
  echo "kiosk_connected_mode: no connected connector on ${1:-card0}" >&2
  return 1
}

# Prints the name of the kernel driver behind DRM card CARD (default card0): virtio_gpu,
# bochs-drm, ... (for virtio the PCI function is driven by virtio-pci and the GPU by its child).
kiosk_drm_driver() {
  _dev=/sys/class/drm/${1:-card0}/device
  for _d in "$_dev"/virtio*/driver "$_dev/driver"; do
    if [ -e "$_d" ]; then
      basename "$(readlink "$_d")"
      return 0
    fi
  done
  return 1
}

# True when input device EVENTDEV (/dev/input/eventN) has every ABS_* CODE (decimal) given.
kiosk_has_abs() {
  _mask=$(cat "/sys/class/input/${1##*/}/device/capabilities/abs")
  shift
  for _code in "$@"; do
    # shellcheck disable=SC2086  # the mask's words become arguments
    _kiosk_bit "$_code" $_mask || return 1
  done
}

# True when bit BIT is set in a sysfs capability mask given as its words (hex, 64 bits each,
# most significant first).
_kiosk_bit() {
  _bit=$1
  shift
  _word=$(($# - 1 - _bit / 64))
  [ "$_word" -ge 0 ] || return 1
  shift "$_word"
  [ $((0x$1 >> (_bit % 64) & 1)) = 1 ]
}
