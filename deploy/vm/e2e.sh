#!/usr/bin/env bash
# End-to-end tests on a real kernel: builds the release binary, fetches Debian's kernel,
# packs the initramfs, then boots one VM per scenario in deploy/vm/scenarios/ and runs it.
#
# Usage: deploy/vm/e2e.sh [--arch amd64|arm64] [--out DIR] [--no-build] [--list] [NAME...]
#   NAME...     run only the scenarios whose file name contains NAME (e.g. 20 or bochs)
#   --arch A    the guest: amd64 (default) or arm64 (qemu-system-aarch64 -M virt -cpu
#               cortex-a72, trixie's kernel, the aarch64 binary of scripts/cross-arm64.sh;
#               same scenarios; env KIOSK_VM_ARCH too). Output in .build/vm-arm64
#   --out DIR   where serial logs, screendumps and guest output go (default .build/vm/e2e)
#   --no-build  use the existing .build/release/KioskCards (env KIOSK_E2E_BUILD=0 too)
#   --list      print the scenarios and exit
#
# A scenario is one file, deploy/vm/scenarios/NN-name.sh (POSIX sh), holding settings and
# up to two functions:
#   VM_DISPLAY=virtio   virtio | bochs | cirrus | portrait | vkms (default virtio; vkms: build-vkms.sh runs
#                       first, and when it cannot get the kernel packages — offline — the
#                       scenario is SKIPPED with the reason, without a VM; a build error FAILs it)
#   VM_TABLET=1         add the usb-tablet (default 0)
#   VM_STALL=60         seconds without progress — no new serial output (kernel, guest checks,
#                       the app's log) and no new host check line — before the scenario FAILs
#                       with "no progress for 60 s after 'LAST LINE'" (default 60)
#   VM_TIMEOUT=60       the scenario's time on an idle host; the hard cap, reached only by a
#                       scenario that keeps making progress, is 5× it (default 90: 450 s;
#                       KIOSK_E2E_CAP_FACTOR=N changes the 5). A loaded host is slow, not stuck.
#   VM_SIZE=1920x1080   the panel's pixels (default 800x480)
#   VM_SOLO=1           run with no other VM beside it (scenarios run KIOSK_E2E_JOBS at a time,
#                       default 2 on 2 cores or more; the solo ones are those whose timing figures
#                       are quoted, e.g. vkms input→flip)
#   VM_RUNNER=preview   boot through deploy/vm/preview.sh (VNC on a socket, usb-tablet) instead
#                       of run-vm.sh: the guest runs the preview's app, not guest(); then
#   prepare() { ... }   runs on the host before the VM boots (bash, set -e, VM_OUT, VM_SHARE)
#                       and writes preview.sh's arguments, one a line, to $VM_OUT/preview.args;
#                       host() gets VM_PID, preview.sh's pid (SIGINT to it is the Ctrl-C)
#   guest() { ... }     runs inside the VM (busybox sh, set -e, cwd /opt/kioskcards, helpers
#                       from guest/guest.sh); exit 77 means skipped; lines it writes to
#                       $KIOSK_OUT/figures.txt are printed under its result
#   host() { ... }      optional; runs on the host (bash, set -e) while the VM runs, with
#                       `qmp ...` (qmp.py), VM_QMP, VM_SERIAL, VM_SHARE (= /share inside),
#                       VM_OUT (this scenario's output dir) and VM_SIZE set
# The scenario passes when guest() exits 0 and host() (if any) returns 0.
#
# Prints PASS/FAIL/SKIP per scenario with its time, the timings of each step, and last the
# line "e2e: N passed, M failed" (", K skipped" when some were). Exits 1 if any failed.
set -euo pipefail
for ((i = 1; i < $#; i++)); do
  [ "${!i}" = --arch ] && j=$((i + 1)) && export KIOSK_VM_ARCH=${!j}
done
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

out="$VM_BUILD/e2e"
build=${KIOSK_E2E_BUILD:-1}
list=0
filters=()
while (($#)); do
  case $1 in
    --out) out=$2 && shift 2 ;;
    --no-build) build=0 && shift ;;
    --arch) shift 2 ;;
    --list) list=1 && shift ;;
    -h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' && exit 0 ;;
    -*) vm_die "unknown option '$1' (see --help)" ;;
    *) filters+=("$1") && shift ;;
  esac
done

scenarios=()
for f in "$VM_DIR"/scenarios/*.sh; do
  name=$(basename "$f" .sh)
  if ((${#filters[@]})); then
    keep=0
    for want in "${filters[@]}"; do [[ $name == *"$want"* ]] && keep=1; done
    ((keep)) || continue
  fi
  scenarios+=("$f")
done
((${#scenarios[@]})) || vm_die "no scenario matches '${filters[*]}' in $VM_DIR/scenarios"
if ((list)); then
  for f in "${scenarios[@]}"; do basename "$f" .sh; done
  exit 0
fi

t_all=$(vm_now_ms)
timings=()
step() {
  local label=$1 t0
  shift
  t0=$(vm_now_ms)
  echo "== e2e: $label"
  "$@"
  timings+=("$(printf '%-28s %6s s' "$label" "$(vm_elapsed "$t0" "$(vm_now_ms)")")")
}

build_release() {
  local log
  log=$(mktemp)
  local cmd=(scripts/release-build.sh)
  [ "$VM_ARCH" = amd64 ] || cmd=(scripts/cross-arm64.sh --no-tests --arch "$VM_ARCH")
  if ! (cd "$REPO_ROOT" && "${cmd[@]}") >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    vm_die "the release build failed"
  fi
  grep -E 'error|Compiling|Build' "$log" | tail -n 3 || true
  rm -f "$log"
}

# Prints a scenario's settings as shell assignments (sourced in a subshell, so nothing leaks).
scenario_settings() {
  (
    VM_DISPLAY=virtio VM_TABLET=0 VM_TIMEOUT=90 VM_STALL=60 VM_SIZE=800x480 VM_RUNNER=run-vm VM_SOLO=0
    # shellcheck disable=SC1090
    . "$1"
    printf 'display=%q tablet=%q timeout=%q stall=%q size=%q runner=%q solo=%q has_host=%q\n' "$VM_DISPLAY" \
      "$VM_TABLET" "$VM_TIMEOUT" "$VM_STALL" "$VM_SIZE" "$VM_RUNNER" "$VM_SOLO" \
      "$(declare -F host >/dev/null && echo 1 || echo 0)"
  )
}

# vkms.ko, only when a selected scenario uses it. Sets vkms_ko, or vkms_skip (the packages
# could not be had: a reason outside the project) or vkms_fail (a bug) with the reason.
vkms_ko="" vkms_skip="" vkms_fail=""
build_vkms() {
  local log rc=0
  log=$(mktemp)
  "$VM_DIR/build-vkms.sh" 2>"$log" || rc=$?
  sed 's/^/   /' "$log"
  case $rc in
    0) vkms_ko=$("$VM_DIR/build-vkms.sh" --path) ;;
    2) vkms_skip=$(tail -n1 "$log" | sed 's/^build-vkms.sh: //') ;;
    *) vkms_fail="deploy/vm/build-vkms.sh failed (status $rc): $(tail -n1 "$log" | sed 's/^build-vkms.sh: //')" ;;
  esac
  rm -f "$log"
}
needs_vkms=0
for f in "${scenarios[@]}"; do
  display=virtio
  eval "$(scenario_settings "$f")"
  if [ "$display" = vkms ]; then needs_vkms=1; fi
done

if [ "$build" = 1 ]; then
  step "release build" build_release
fi
step "kernel" "$VM_DIR/fetch-kernel.sh"
if ((needs_vkms)); then step "vkms module" build_vkms; fi
step "initramfs" "$VM_DIR/build-initramfs.sh" --vkms "${vkms_ko:-none}" --out "$VM_BUILD/initramfs.cpio"

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)

qmp() { python3 "$VM_DIR/qmp.py" "$@"; }

# Runs host() of scenario file $1 with the VM's handles in the environment, in its own bash
# so that `set -e` holds inside it (bash ignores it in a function called from `||`).
run_host_part() {
  VM_QMP=$2 VM_SERIAL=$3 VM_SHARE=$4 VM_OUT=$5 VM_SIZE=$6 VM_PID=$vm_pid \
    bash -c 'set -euo pipefail
      qmp() { python3 "$VM_DIR/qmp.py" "$@"; }
      cd "$VM_OUT"
      . "$1"
      host' host "$1"
}

# Runs prepare() of scenario file $1 (VM_RUNNER=preview) before its VM boots.
run_prepare_part() {
  VM_SHARE=$2 VM_OUT=$3 bash -c 'set -euo pipefail
      cd "$VM_OUT"
      . "$1"
      prepare' prepare "$1"
}

# Prints the last lines of a log, indented, for a failure report.
show_tail() {
  [ -s "$1" ] || return 0
  echo "   --- ${1#"$out"/} (last ${2:-15} lines)"
  tail -n "${2:-15}" "$1" | sed 's/^/   | /'
}

# The figures of every scenario, last: the app's --stats JSON lines ("LABEL: {...}") as one
# table, other figure lines as they are.
figures_summary() {
  local files=()
  for f in "$out"/*/share/out/figures.txt; do [ -s "$f" ] && files+=("$f"); done
  ((${#files[@]})) || return 0
  echo "== e2e: figures, measured under TCG (software emulation) on $(nproc) shared cores;" \
    "absolute times are emulated-CPU slow"
  python3 - "${files[@]}" <<'PY'
import json, sys
rows, other = [], []
for path in sys.argv[1:]:
    for line in open(path, encoding="utf-8", errors="replace"):
        label, sep, rest = line.rstrip("\n").partition(": ")
        try:
            rows.append((label, json.loads(rest))) if sep and rest.startswith("{") else other.append(line.strip())
        except ValueError:
            other.append(line.strip())
def ms(s, key):
    v = s.get(key)
    return "-" if v is None else f"{v:.0f}" if v >= 100 else f"{v:.1f}"
def count(s, key):
    v = s.get(key)
    return "-" if v is None else f"{v:.0f}"
if rows:
    head = ("run", "boot->1st frame", "start->1st frame", "input->flip p50/p99 (n)", "frames/gesture p50/max", "frame time p50/p99", "peak RSS")
    table = [head] + [(
        label, ms(s, "boot_to_first_frame_ms") + " ms", ms(s, "start_to_first_frame_ms") + " ms",
        f"{ms(s, 'input_to_flip_p50_ms')} / {ms(s, 'input_to_flip_p99_ms')} ms ({s.get('input_to_flip_samples', '-')})",
        f"{count(s, 'frames_per_gesture_p50')} / {count(s, 'frames_per_gesture_max')} ({s.get('gestures', '-')} gestures)",
        f"{ms(s, 'frame_time_p50_ms')} / {ms(s, 'frame_time_p99_ms')} ms",
        f"{s['peak_rss_kb'] / 1024:.1f} MB" if s.get("peak_rss_kb") else "-") for label, s in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    for r in table:
        print("   " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
for line in other:
    print("   " + line)
PY
}

# One scenario, in a job of its own: everything it prints goes to $dir/report (shown when it
# ends), its verdict to $dir/result, its seconds to $dir/seconds.
run_scenario() {
  local f=$1 vm_pid=""
  trap '[ -z "$vm_pid" ] || kill "$vm_pid" 2>/dev/null; exit 130' INT TERM
  name=$(basename "$f" .sh)
  dir="$out/$name"
  share="$dir/share"
  mkdir -p "$share"
  display=virtio tablet=0 timeout=90 stall=60 size=800x480 runner=run-vm has_host=0
  eval "$(scenario_settings "$f")"
  cap=$((timeout * ${KIOSK_E2E_CAP_FACTOR:-5}))
  if [ "$display" = vkms ] && [ -z "$vkms_ko" ]; then
    # No VM without the module: say why, once, in the result line.
    if [ -n "$vkms_skip" ]; then
      echo "SKIP $name (no VM): $vkms_skip"
      echo "SKIP $name $vkms_skip" >"$dir/result"
    else
      echo "FAIL $name (no VM): ${vkms_fail:-no vkms.ko}"
      echo "FAIL $name ${vkms_fail:-no vkms.ko}" >"$dir/result"
    fi
    return 0
  fi
  cp "$f" "$share/scenario.sh"
  # Code shared by several scenarios (the guest sources it from /share/lib).
  [ ! -d "$VM_DIR/scenarios/lib" ] || cp -R "$VM_DIR/scenarios/lib" "$share/lib"
  vm_args=(--display "$display" --size "$size" --timeout "$cap" --stall "$stall" --share "$share"
    --progress "$dir/host.log"
    --scenario "$share/scenario.sh"
    --serial "$dir/serial.log" --qmp "$dir/qmp.sock")
  [ "$tablet" = 1 ] && vm_args+=(--tablet)

  t0=$(vm_now_ms)
  if [ "$runner" = preview ]; then
    # The preview as a person starts it (its own scenario.sh, the deck and data folders of
    # prepare()), with the harness's serial log, QMP socket and no-progress rule. SIGINT is
    # set back to its default (a background job ignores it), so host() can press Ctrl-C.
    if ! run_prepare_part "$f" "$share" "$dir" >"$dir/prepare.log" 2>&1; then
      echo "FAIL $name (no VM): prepare() failed"
      show_tail "$dir/prepare.log"
      echo "FAIL $name prepare() failed" >"$dir/result"
      return 0
    fi
    mapfile -t preview_args <"$dir/preview.args"
    python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$VM_DIR/preview.sh" --vm-share "$share" --vm-serial "$dir/serial.log" \
      --vm-qmp "$dir/qmp.sock" --vm-stall "$stall" --vm-timeout "$cap" --vm-progress "$dir/host.log" \
      --vm-vnc "unix:$dir/vnc.sock" --vm-initrd "$VM_BUILD/initramfs.cpio" --vm-binary "$VM_APP" \
      "${preview_args[@]}" >"$dir/run-vm.log" 2>&1 &
  else
    "$VM_DIR/run-vm.sh" "${vm_args[@]}" >"$dir/run-vm.log" 2>&1 &
  fi
  vm_pid=$!
  host_status=0
  if [ "$has_host" = 1 ]; then
    run_host_part "$f" "$dir/qmp.sock" "$dir/serial.log" "$share" "$dir" "$size" >"$dir/host.log" 2>&1 ||
      host_status=$?
    # A failed host check need not wait for the guest: stop the VM now.
    ((host_status == 0 || host_status == 77)) || qmp --qmp "$dir/qmp.sock" quit >/dev/null 2>&1 || true
  fi
  guest_status=0
  wait "$vm_pid" || guest_status=$?
  vm_pid=""
  seconds=$(vm_elapsed "$t0" "$(vm_now_ms)")
  boot=$(sed -n 's/.*userspace after \([0-9.]*\) s.*/\1/p' "$dir/run-vm.log" | head -n1)
  detail="${seconds} s, userspace after ${boot:-?} s"

  # A guest that skipped ends the host's waits with 77 too (qmp.py wait-serial).
  if ((guest_status == 77 && (host_status == 0 || host_status == 77))); then
    verdict=SKIP
    echo "SKIP $name ($detail): $(grep -m1 -i 'skip' "$dir/serial.log" | tr -d '\r' || true)"
  elif ((guest_status == 0 && host_status == 0)); then
    verdict=PASS
    echo "PASS $name ($detail)"
  else
    verdict=FAIL
    why=()
    case $guest_status in
      0) ;;
      125) ((host_status != 0)) || why+=("the VM stopped without a scenario status") ;;
      123) why+=("$(sed -n 's/^run-vm\.sh: \(no progress for .*\); killing the VM after \([0-9.]*\) s.*/\1 (at \2 s)/p' "$dir/run-vm.log" | tail -n1)") ;;
      124) why+=("the hard cap of $cap s (${KIOSK_E2E_CAP_FACTOR:-5} × VM_TIMEOUT) was reached while the scenario was still making progress") ;;
      *) why+=("guest status $guest_status") ;;
    esac
    ((host_status == 0)) || why+=("host checks status $host_status")
    # A wrong result names its first failed check, so the line tells it from no progress.
    first_fail=$(cat "$dir/serial.log" "$dir/host.log" 2>/dev/null | tr -d '\r' | grep -m1 '^FAIL ' | cut -c6-165 || true)
    [ -z "$first_fail" ] || why+=("wrong result: $first_fail")
    echo "FAIL $name ($detail): $(printf '%s; ' "${why[@]}" | sed 's/; $//')"
    grep -h '^FAIL\|^ok ' "$dir/serial.log" "$dir/host.log" 2>/dev/null | sed 's/^/   /' || true
    show_tail "$dir/serial.log"
    show_tail "$dir/host.log"
  fi
  # Figures the scenario measured (one per line in $KIOSK_OUT/figures.txt) go into the log.
  if [ -s "$share/out/figures.txt" ]; then
    sed 's/^/   figure: /' "$share/out/figures.txt"
  fi
  echo "$verdict $name $detail" >"$dir/result"
  echo "$seconds" >"$dir/seconds"
}

# Scenarios run side by side, KIOSK_E2E_JOBS at a time (default 2 on a machine of 2 cores or
# more: a TCG guest of one vCPU keeps one host core busy). A scenario with VM_SOLO=1 (one
# whose figures are quoted: vkms latency) runs with no other VM beside it.
jobs_max=${KIOSK_E2E_JOBS:-$(($(nproc) >= 2 ? 2 : 1))}
[[ $jobs_max =~ ^[1-9][0-9]*$ ]] || vm_die "KIOSK_E2E_JOBS wants a count of VMs at a time (1, 2, …), not '$jobs_max'"
declare -A job_dirs=()
stop_jobs() {
  echo "e2e: interrupted" >&2
  local p
  for p in "${!job_dirs[@]}"; do kill "$p" 2>/dev/null || true; done
  wait
  exit 130
}
trap stop_jobs INT TERM

# Waits for one running scenario and prints its report.
reap_one() {
  local done_pid=""
  wait -n -p done_pid "${!job_dirs[@]}" || true
  [ -n "$done_pid" ] || return 0
  cat "${job_dirs[$done_pid]}/report"
  unset "job_dirs[$done_pid]"
}

echo "== e2e: scenarios (output in $out; $jobs_max at a time, VM_SOLO ones alone)"
for f in "${scenarios[@]}"; do
  name=$(basename "$f" .sh)
  dir="$out/$name"
  mkdir -p "$dir/share"
  solo=0
  eval "$(scenario_settings "$f")"
  limit=$jobs_max
  [ "$solo" = 1 ] && limit=1
  while ((${#job_dirs[@]} >= limit)); do reap_one; done
  run_scenario "$f" >"$dir/report" 2>&1 &
  job_dirs[$!]=$dir
  # a solo scenario has the machine to itself until it ends
  if [ "$solo" = 1 ]; then while ((${#job_dirs[@]})); do reap_one; done; fi
done
while ((${#job_dirs[@]})); do reap_one; done
trap - INT TERM

passed=0 failed=0 skipped=0
for f in "${scenarios[@]}"; do
  name=$(basename "$f" .sh)
  dir="$out/$name"
  case $(cut -d' ' -f1 "$dir/result" 2>/dev/null) in
    PASS) passed=$((passed + 1)) ;;
    SKIP) skipped=$((skipped + 1)) ;;
    *)
      failed=$((failed + 1))
      [ -s "$dir/result" ] || echo "FAIL $name: the scenario's job ended without a verdict (see $dir/report)"
      ;;
  esac
  timings+=("$(printf '%-28s %6s s' "  $name" "$(cat "$dir/seconds" 2>/dev/null || echo '?')")")
done

timings+=("$(printf '%-28s %6s s' "total" "$(vm_elapsed "$t_all" "$(vm_now_ms)")")")
echo "== e2e: timings (TCG, $(nproc) cores; absolute times are emulated-CPU slow)"
printf '   %s\n' "${timings[@]}"
figures_summary
echo "   screendumps, serial logs and guest output: $out/<scenario>/"
summary="e2e: $passed passed, $failed failed"
((skipped == 0)) || summary+=", $skipped skipped"
echo "$summary"
if [ "${KIOSK_REQUIRE_ALL:-0}" = 1 ] && ((skipped)); then
  # CI installs everything a scenario needs: a skip there is a failure.
  echo "e2e: KIOSK_REQUIRE_ALL=1: the $skipped skipped scenario(s) count as failed"
  exit 1
fi
((failed == 0))
