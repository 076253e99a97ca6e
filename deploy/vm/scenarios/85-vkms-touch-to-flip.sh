# shellcheck shell=sh disable=SC2034,SC2317  # VM_* are read by e2e.sh; functions run indirectly
# The kiosk's own touch-to-flip figure against clocks outside it, on vkms (a real 60 Hz
# vblank). The injector writes each touch frame and notes CLOCK_MONOTONIC once the frame's
# SYN_REPORT write has returned (`inject --times`); the kernel's drm_vblank_event tracepoint
# (ftrace, trace_clock mono) records every vblank with its time, and drm_vblank_event_delivered
# every event sent to a client's file: the app's flip completions. Neither is the kiosk's code:
# the app's latency comes from the evdev timestamps it reads and the flip events it receives,
# the outside figure from the injector's clock and the kernel's trace of those events. Each
# input comes after a second of stillness (the card has caught up with a held finger, nothing
# animates), so the first flip after it is the one that first shows it: outside latency = that
# flip's vblank time − the write time.
# The scenario fails when the two p95 differ by more than one refresh period (16.7 ms).
VM_DISPLAY=vkms
VM_TIMEOUT=180
VM_STALL=150 # a boot on a loaded host can print nothing for a minute
VM_SOLO=1 # its figures are quoted (docs/TESTING.md): no other VM beside it

# The nearest-rank percentile P of the numbers on stdin (as KioskSystem's `percentile`).
tf_percentile() {
  sort -n | awk -v p="$1" '{ v[NR] = $1 } END {
    if (NR == 0) exit 1
    r = p / 100 * NR; k = int(r); if (k < r) k++; if (k < 1) k = 1; if (k > NR) k = NR
    printf "%.3f", v[k] }'
}

guest() {
  kiosk_need_vkms || return 1
  card=$(kiosk_vkms_card)
  kiosk_check "vkms is a DRM card (is: ${card:-none})" test -n "$card"
  kiosk_wait_for "/dev/dri/$card" 10

  # --- the outside observer: the kernel's trace of every vblank event it sends -------------
  T=/sys/kernel/tracing
  [ -d "$T/events" ] || mount -t tracefs nodev "$T" 2>/dev/null || true
  if [ ! -d "$T/events" ]; then
    mount -t debugfs nodev /sys/kernel/debug 2>/dev/null || true
    T=/sys/kernel/debug/tracing
  fi
  kiosk_check "the kernel has the drm_vblank_event tracepoint ($T)" test -d "$T/events/drm/drm_vblank_event"
  echo mono >"$T/trace_clock"
  echo 2048 >"$T/buffer_size_kb"
  : >"$T/trace"
  echo 1 >"$T/events/drm/drm_vblank_event/enable"
  echo 1 >"$T/events/drm/drm_vblank_event_delivered/enable"
  echo 1 >"$T/tracing_on"

  # --- the app, and touches with a second of stillness before each -------------------------
  log=$KIOSK_OUT/run.log
  stats=$KIOSK_OUT/stats.json
  mkdir -p /tmp/d
  KioskCards run --deck examples/onboarding.json --data /tmp/d --stats "$stats" --drm "/dev/dri/$card" \
    >"$log" 2>&1 &
  app=$!
  kiosk_wait_until 60 grep -q 'first frame on screen' "$log"
  # The attract screen nudges the card for 1.4 s from its start, then every 6 s: the first
  # touch waits for the first nudge to end, so that it too lands on a still screen.
  sleep 2
  # A finger in the empty corner (a visitor is here: the attract nudges stop), then one held
  # on the card and moved 15 px at a time, right and back, and lifted (the card springs home).
  {
    echo "down 1 20 20"
    echo "wait 800"
    echo "up 1"
    echo "wait 1500"
    echo "down 0 512 400"
    echo "wait 1200"
    for x in 527 542 557 572 587 602 587 572 557 542 527 512; do
      echo "move 0 $x 400"
      echo "wait 1200"
    done
    echo "up 0"
    echo "wait 1500"
  } >/tmp/steps.txt
  KioskCards inject --screen 1024x768 --times "$KIOSK_OUT/input-times.txt" --script /tmp/steps.txt
  sleep 1
  kill -TERM "$app"
  status=0
  wait "$app" || status=$?
  echo 0 >"$T/events/drm/drm_vblank_event/enable"
  echo 0 >"$T/events/drm/drm_vblank_event_delivered/enable"
  cp "$T/trace" "$KIOSK_OUT/trace.txt"
  kiosk_check "run: exits 0 on SIGTERM (is: $status)" test "$status" = 0
  kiosk_check "run: wrote its stats" test -s "$stats"

  # --- the outside figure ------------------------------------------------------------------
  # Flip completions (ns, CLOCK_MONOTONIC): drm_vblank_event fires at every vblank with its
  # time ("time="); drm_vblank_event_delivered when an event goes to a client's file (a NULL
  # file is the kernel's own commit, e.g. the console's). A delivered event's vblank time is
  # that of the vblank with its sequence number, else the delivery's own mono timestamp.
  awk '/drm_vblank_event:/ {
      if (match($0, /seq=[0-9]+/)) s = substr($0, RSTART + 4, RLENGTH - 4); else next
      if (match($0, /time=[0-9]+/)) at[s] = substr($0, RSTART + 5, RLENGTH - 5)
    }
    /drm_vblank_event_delivered:/ {
      if ($0 ~ /file=0+,/) next
      if (match($0, /seq=[0-9]+/)) s = substr($0, RSTART + 4, RLENGTH - 4); else next
      if (s in at) { print at[s]; next }
      if (match($0, /[0-9]+\.[0-9]+: drm_vblank_event_delivered/)) {
        r = substr($0, RSTART, RLENGTH); sub(/: drm.*/, "", r); printf "%.0f\n", r * 1e9 }
    }' "$KIOSK_OUT/trace.txt" | sort -n >/tmp/flips.txt
  sort -n "$KIOSK_OUT/input-times.txt" >/tmp/inputs.txt
  kiosk_check "the trace holds flips (is: $(wc -l </tmp/flips.txt))" test -s /tmp/flips.txt
  kiosk_check "the injector noted its frames (is: $(wc -l </tmp/inputs.txt))" test -s /tmp/inputs.txt
  # For each input, the first flip after it that can show it, before the next input: one
  # sample. An input less than 50 ms after a flip came while the screen was moving ("busy",
  # e.g. the first touch into the attract screen's nudge): a flip within one refresh period
  # after it was committed before the input could be read, so the next flip is the first
  # that can show it.
  awk 'NR == FNR { f[++nf] = $1; next } { t[++nt] = $1 }
    END {
      j = 1; busy = 0
      for (i = 1; i <= nt; i++) {
        while (j <= nf && f[j] <= t[i]) j++
        k = j
        if (j > 1 && t[i] - f[j - 1] < 50e6) {
          busy++
          if (j <= nf && f[j] - t[i] < 1e9 / 60) k = j + 1
        }
        limit = (i < nt) ? t[i + 1] : t[i] + 1e9
        if (k <= nf && f[k] < limit) printf "%.3f\n", (f[k] - t[i]) / 1e6
      }
      print busy > "/tmp/busy.txt"
    }' /tmp/flips.txt /tmp/inputs.txt >/tmp/outside-ms.txt
  n_out=$(wc -l </tmp/outside-ms.txt)
  busy=$(cat /tmp/busy.txt)
  out_p50=$(tf_percentile 50 </tmp/outside-ms.txt || true)
  out_p95=$(tf_percentile 95 </tmp/outside-ms.txt || true)
  out_max=$(tf_percentile 100 </tmp/outside-ms.txt || true)
  stat() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$stats"; }
  k_p50=$(stat input_to_flip_p50_ms)
  k_p95=$(stat input_to_flip_p95_ms)
  k_max=$(stat input_to_flip_max_ms)
  k_n=$(stat input_to_flip_samples)
  echo "outside samples (ms): $(tr '\n' ' ' </tmp/outside-ms.txt)"
  line="touch-to-flip on vkms: kiosk p50 $k_p50 p95 $k_p95 max $k_max ms ($k_n samples); outside (injector's write → kernel's vblank event) p50 $out_p50 p95 $out_p95 max $out_max ms ($n_out samples, $busy inputs during motion)"
  echo "$line"
  echo "$line" >>"$KIOSK_OUT/figures.txt"
  kiosk_check "at least 10 touches shown, seen from outside (is: $n_out)" test "$n_out" -ge 10
  kiosk_check "the kiosk counted as many shown touches, ±2 (kiosk $k_n, outside $n_out)" \
    awk -v a="$k_n" -v b="$n_out" 'BEGIN { d = a - b; exit !(a != "" && d <= 2 && d >= -2) }'
  kiosk_check "the kiosk's p95 $k_p95 ms is within one refresh period (16.7 ms) of the outside p95 $out_p95 ms" \
    awk -v a="$k_p95" -v b="$out_p95" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= 1000 / 60) }'
}
