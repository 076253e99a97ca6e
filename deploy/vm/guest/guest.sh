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
