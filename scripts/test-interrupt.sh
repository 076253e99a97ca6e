#!/usr/bin/env bash
# Kills scripts/test.sh at the moments that used to break later runs, then runs it again and
# checks that this run passes:
#   amd64-build  SIGKILL to the whole run while `swift build` compiles (.build/ half written)
#   chroot       SIGKILL to the arm64 lane while apt installs into its trixie build chroot (a
#                fresh cache in a temporary KIOSK_ARM64_CACHE, so there is an install to kill;
#                dpkg is left "interrupted", the next run must repair it)
# Long (a whole test.sh run after each kill, a debootstrap for the chroot case), so
# scripts/test.sh does not run it. Logs go to a temporary directory, printed at the start.
#
# Usage: scripts/test-interrupt.sh [--rerun 'COMMAND'] [amd64-build] [chroot]   (default: both)
#   --rerun  the shell command that must pass after the amd64 kill (default: scripts/test.sh);
#            after the chroot kill the arm64 lane's builds run again (test-arm64.sh --only build)
set -euo pipefail
cd "$(dirname "$0")/.."
rerun="scripts/test.sh"
cases=()
while [ $# -gt 0 ]; do
  case $1 in
    --rerun) rerun=$2 && shift ;;
    amd64-build | chroot) cases+=("$1") ;;
    *) echo "test-interrupt: unknown argument $1 (see the header of $0)" >&2 && exit 2 ;;
  esac
  shift
done
((${#cases[@]})) || cases=(amd64-build chroot)
logs=$(mktemp -d /tmp/kioskcards-interrupt-XXXXXX)
echo "test-interrupt: logs in $logs"

# interrupt NAME PATTERN SECONDS CMD...: runs CMD in a session of its own; once a process of
# that session matches PATTERN, waits SECONDS and SIGKILLs the session (every process of
# the run), as a power cut or a killed CI job would.
interrupt() {
  local name=$1 pattern=$2 after=$3 pid p
  shift 3
  setsid "$@" >"$logs/$name-killed.log" 2>&1 &
  pid=$!
  until p=$(pgrep -s "$pid" -f -- "$pattern" | head -n 1) && [ -n "$p" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "test-interrupt: $name: the run ended before '$pattern' started (see $logs/$name-killed.log)" >&2
      return 1
    fi
    sleep 0.5
  done
  sleep "$after"
  echo "test-interrupt: $name: SIGKILL to every process of session $pid (while '$pattern' ran)"
  pkill -KILL -s "$pid" || true
  wait "$pid" 2>/dev/null || true
}

# again NAME CMD...: CMD must pass now.
again() {
  local name=$1
  shift
  echo "test-interrupt: $name: running again: $*"
  if "$@" >"$logs/$name-again.log" 2>&1; then
    echo "test-interrupt: $name: PASS (the run after the kill passed)"
  else
    echo "test-interrupt: $name: FAIL (log $logs/$name-again.log):" >&2
    tail -n 30 "$logs/$name-again.log" >&2
    return 1
  fi
}

failed=0
for c in "${cases[@]}"; do
  case $c in
    amd64-build)
      # Work for the compiler: the layer every other target imports.
      touch Sources/KioskSystem/Errors/*.swift
      interrupt amd64-build 'swift-frontend.*Sources/Kiosk' 5 bash scripts/test.sh --no-arm64 || failed=1
      again amd64-build bash -c "$rerun" || failed=1
      ;;
    chroot)
      cache=$(mktemp -d /var/tmp/kioskcards-interrupt-cache-XXXXXX)
      interrupt chroot 'apt-get install -y -qq --no-install-recommends' 20 \
        env KIOSK_ARM64_CACHE="$cache" scripts/test-arm64.sh --only build || failed=1
      if [ -f "$cache/chroot-amd64/.kiosk-packages" ]; then
        echo "test-interrupt: chroot: FAIL: the killed install left its completion stamp" >&2
        failed=1
      fi
      again chroot env KIOSK_ARM64_CACHE="$cache" scripts/test-arm64.sh --only build || failed=1
      rm -rf "$cache"
      ;;
  esac
done
exit "$failed"
