# shellcheck shell=sh disable=SC2034  # APP_* are read by the scenarios
# Shared by the scenarios that run the app (50-…). Sourced inside the VM as /share/lib/app.sh
# (e2e.sh copies deploy/vm/scenarios/lib into every scenario's share) and on the host as
# "$VM_DIR/scenarios/lib/app.sh", so it is POSIX sh. app_* run in the guest, host_* on the host.
#
# Guest: app_start runs `KioskCards run` with its log in $APP_LOG (mirrored to the console, so
# the serial log and e2e's failure report show it), app_wait_log syncs on the app's own log
# lines, app_inject plays touches at logical pixels (turned like the app for KIOSK_ROTATION),
# app_stop sends SIGTERM and keeps the exit status, app_figures hands the --stats JSON to e2e.
# Host: host_app_geometry reads what the guest's marker says about the app's screen,
# host_render draws the expected picture with the app's own headless renderer, host_like
# compares the scanout with it (screen.py).

APP_LOG=/tmp/app.log
APP_DATA=/tmp/data
APP_STATS=/tmp/stats.json

# --- guest ---------------------------------------------------------------------------------

# Starts `KioskCards run --data $APP_DATA --stats $APP_STATS --rotation $KIOSK_ROTATION ARGS…`
# in the background (APP_PID).
app_start() {
  mkdir -p "$APP_DATA"
  : >"$APP_LOG"
  KioskCards run --data "$APP_DATA" --stats "$APP_STATS" --rotation "${KIOSK_ROTATION:-0}" "$@" \
    >>"$APP_LOG" 2>&1 &
  APP_PID=$!
  tail -f "$APP_LOG" >/dev/console 2>&1 &
  APP_TAIL=$!
}

# Number of lines of the app's log containing TEXT.
app_count() { grep -cF -- "$1" "$APP_LOG" || true; }

# Waits until TEXT is in the app's log COUNT times (default 1); fails at once if the app exits
# meanwhile. SECONDS (default 30) is a no-progress window, not a total: it restarts whenever
# the app's log grows, so a slow, loaded host does not fail a working app; a hard cap of 5×
# SECONDS ends the wait on an app that logs but never says TEXT.
app_wait_log() {
  _text=$1 _want=${2:-1} _ticks=$((${3:-30} * 10)) _cap=$((${3:-30} * 50)) _size=-1
  while [ "$(app_count "$_text")" -lt "$_want" ]; do
    if ! kill -0 "$APP_PID" 2>/dev/null; then
      echo "app_wait_log: the app exited while waiting for '$_text' (x$_want); its log:" >&2
      cat "$APP_LOG" >&2
      return 1
    fi
    _now=$(wc -c <"$APP_LOG")
    if [ "$_now" != "$_size" ]; then
      _size=$_now _ticks=$((${3:-30} * 10))
    fi
    _ticks=$((_ticks - 1)) _cap=$((_cap - 1))
    if [ "$_ticks" -le 0 ]; then
      echo "app_wait_log: no progress for ${3:-30} s after '$(tail -n1 "$APP_LOG" | cut -c1-120)' while waiting for '$_text' (x$_want)" >&2
      return 1
    fi
    if [ "$_cap" -le 0 ]; then
      echo "app_wait_log: '$_text' (x$_want) not in the app's log within the hard cap of $((${3:-30} * 5)) s although it kept logging" >&2
      return 1
    fi
    usleep 100000
  done
}

# After the first frame: reads the size and scale the app logged ("… 480x800 px, 0.635 px/pt,
# rotation 90 …": the size is the turned, logical one) into APP_W/H and APP_SCALE, the
# panel's own size into APP_PANEL_W/H, and into APP_GEOMETRY the marker words the host reads
# (host_app_geometry).
app_geometry() {
  _line=$(grep -m1 ' px/pt' "$APP_LOG")
  APP_SCALE=$(echo "$_line" | sed -n 's/.* \([0-9.]*\) px\/pt.*/\1/p')
  _size=$(echo "$_line" | sed -n 's/.* \([0-9]*x[0-9]*\) px,.*/\1/p')
  if [ -z "$APP_SCALE" ] || [ -z "$_size" ]; then
    echo "app_geometry: no '… WxH px, S px/pt …' line in the app's log" >&2
    return 1
  fi
  APP_W=${_size%x*} APP_H=${_size#*x}
  case ${KIOSK_ROTATION:-0} in
    90 | 270) APP_PANEL_W=$APP_H APP_PANEL_H=$APP_W ;;
    *) APP_PANEL_W=$APP_W APP_PANEL_H=$APP_H ;;
  esac
  APP_GEOMETRY="scale=$APP_SCALE rotation=${KIOSK_ROTATION:-0} panel=${APP_PANEL_W}x$APP_PANEL_H"
  # The panel's millimetres as its EDID says (physical, unrotated), when the app knows them:
  # the 9 mm targets and the text floor depend on them.
  _mm=$(echo "$_line" | sed -n 's/.*, panel \([0-9]*x[0-9]*\) mm,.*/\1/p')
  [ -z "$_mm" ] || APP_GEOMETRY="$APP_GEOMETRY mm=$_mm"
}

# Points to pixels (one decimal) at the app's scale.
app_px() { awk -v p="$1" -v s="$APP_SCALE" 'BEGIN { printf "%.1f", p * s }'; }

# The panel pixel "X Y" (what the injector's --screen means) of logical pixel (X, Y) of the
# app turned KIOSK_ROTATION clockwise: the formulas of Rotation.toPhysical.
app_phys() {
  awk -v x="$1" -v y="$2" -v r="${KIOSK_ROTATION:-0}" -v w="$APP_PANEL_W" -v h="$APP_PANEL_H" 'BEGIN {
    if (r == 90) { px = w - y; py = x } else if (r == 180) { px = w - x; py = h - y }
    else if (r == 270) { px = y; py = h - x } else { px = x; py = y }
    printf "%.1f %.1f", px, py }'
}

# The logical pixel "X Y" at DX, DY points from the centre of the logical screen.
app_from_centre() {
  awk -v dx="$1" -v dy="$2" -v s="$APP_SCALE" -v w="$APP_W" -v h="$APP_H" \
    'BEGIN { printf "%.1f %.1f", w / 2 + dx * s, h / 2 + dy * s }'
}

# Runs `KioskCards inject` with COMMANDs whose coordinates are logical pixels written as
# "@X,Y" (e.g. "drag @400,240 @600,240 300"), turned onto the panel for the injector.
app_inject() {
  _cmds=""
  for _c in "$@"; do
    _out=""
    for _w in $_c; do
      case $_w in
        @*,*)
          _xy=${_w#@}
          _w=$(app_phys "${_xy%,*}" "${_xy#*,}")
          ;;
      esac
      _out="$_out${_out:+ }$_w"
    done
    _cmds="$_cmds$(printf '%s\n' "$_out")
"
  done
  printf '%s' "$_cmds" >/tmp/inject.txt
  echo "inject: $(tr '\n' ';' </tmp/inject.txt)"
  KioskCards inject --screen "${APP_PANEL_W}x${APP_PANEL_H}" --script /tmp/inject.txt
}

# "@X,Y" for DX, DY points from the centre of the logical screen (for app_inject).
app_at() {
  _p=$(app_from_centre "$1" "$2")
  echo "@${_p% *},${_p#* }"
}

# "@X,Y" for the logical point (X, Y) in points (for app_inject).
app_pt() {
  awk -v x="$1" -v y="$2" -v s="$APP_SCALE" 'BEGIN { printf "@%.1f,%.1f\n", x * s, y * s }'
}

# The logical width in points (one decimal).
app_width_pt() { awk -v w="$APP_W" -v s="$APP_SCALE" 'BEGIN { printf "%.1f", w / s }'; }

# The app's CPU time so far (utime + stime of /proc/PID/stat, in clock ticks).
app_cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$APP_PID/stat"; }

# SIGTERM, then waits for the app: its exit status is in APP_STATUS (the caller checks it).
app_stop() {
  kill -TERM "$APP_PID"
  APP_STATUS=0
  wait "$APP_PID" || APP_STATUS=$?
  kill "$APP_TAIL" 2>/dev/null || true
  cp "$APP_LOG" "$KIOSK_OUT/app.log"
}

# A field of the --stats JSON (a number or null).
app_stat() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$APP_STATS"; }

# Hands the app's --stats JSON to e2e.sh as "LABEL: {…}" in $KIOSK_OUT/figures.txt (printed
# under the scenario's result and in the figures table at the end of the run).
app_figures() {
  if [ ! -s "$APP_STATS" ]; then
    echo "app_figures: the app wrote no stats to $APP_STATS" >&2
    return 1
  fi
  cp "$APP_STATS" "$KIOSK_OUT/stats.json"
  echo "$1: $(cat "$APP_STATS")" >>"$KIOSK_OUT/figures.txt"
}

# Exports the decisions the app stored (CSV, into $KIOSK_OUT/decisions.csv; after app_stop the
# store is flushed) and prints them as "card:action" words in the order they were taken.
app_decisions() {
  KioskCards export --data "$APP_DATA" --format csv >"$KIOSK_OUT/decisions.csv"
  # Columns: id, kiosk_id, session_id, deck_id, deck_version, card_id, action, … (no commas
  # in ids and actions, so a plain split is enough).
  tr -d '\r' <"$KIOSK_OUT/decisions.csv" | awk -F, 'NR > 1 { printf "%s%s:%s", (n++ ? " " : ""), $6, $7 }'
}

# --- host ----------------------------------------------------------------------------------

# Sets HOST_SCALE, HOST_ROTATION, HOST_PANEL (WxH) from the guest's marker line MARKER (the
# words app_geometry printed).
host_app_geometry() {
  HOST_SCALE=$(echo "$1" | sed -n 's/.*scale=\([0-9.]*\).*/\1/p')
  HOST_ROTATION=$(echo "$1" | sed -n 's/.*rotation=\([0-9]*\).*/\1/p')
  HOST_PANEL=$(echo "$1" | sed -n 's/.*panel=\([0-9]*x[0-9]*\).*/\1/p')
  HOST_MM=$(echo "$1" | sed -n 's/.*mm=\([0-9]*x[0-9]*\).*/\1/p')
  if [ -z "$HOST_SCALE" ] || [ -z "$HOST_ROTATION" ] || [ -z "$HOST_PANEL" ]; then
    echo "host_app_geometry: no scale/rotation/panel in '$1'" >&2
    return 1
  fi
  # The attract line ("Tippen zum Starten", 34 pt above the bottom while nobody has touched)
  # is drawn by the app, not by the headless renderer: host_like skips these logical pixels.
  HOST_ATTRACT=$(awk -v size="$HOST_PANEL" -v r="$HOST_ROTATION" -v s="$HOST_SCALE" 'BEGIN {
    split(size, p, "x"); w = p[1]; h = p[2]
    if (r == 90 || r == 270) { t = w; w = h; h = t }
    printf "0 %d %d %d", h - 36 * s, w, 36 * s + 1 }')
  echo "app: $HOST_PANEL px, $HOST_SCALE px/pt, rotation $HOST_ROTATION"
}

# Renders expected-NAME.png in VM_OUT: `KioskCards render --deck DECK ARGS…` at the app's
# scale, panel size and rotation, with the guest's fontconfig (the fonts packed in the VM).
host_render() {
  _name=$1 _deck=$2
  shift 2
  # The app of the guest's architecture (arm64: the aarch64 build under qemu-user with the
  # sysroot's libraries, the ones the guest has; QEMU_LD_PREFIX is ignored by x86-64 binaries).
  FONTCONFIG_FILE="$VM_DIR/guest/fonts.conf" QEMU_LD_PREFIX="${VM_SYSROOT:-}" \
    "${VM_APP:-$REPO_ROOT/.build/release/KioskCards}" render \
    --deck "$_deck" --size "$HOST_PANEL" --scale "$HOST_SCALE" --rotation "$HOST_ROTATION" \
    ${HOST_MM:+--panel-mm "$HOST_MM"} --out "$VM_OUT/expected-$_name.png" "$@"
}

# A copy of DECK with its first N cards left out, as OUT (for "after N dismissals").
host_deck_without_first() {
  python3 -c 'import json, sys
deck = json.load(open(sys.argv[1]))
deck["cards"] = deck["cards"][int(sys.argv[2]):]
json.dump(deck, open(sys.argv[3], "w"), ensure_ascii=False, indent=1)' "$1" "$2" "$3"
}

# The scanout looks like expected-NAME.png (screen.py expect-like; ARGS e.g. --within 10),
# except for the attract line; the screendump is kept as NAME.png.
host_like() {
  _name=$1
  shift
  # shellcheck disable=SC2086  # the rectangle's four numbers are four arguments
  python3 "$VM_DIR/scenarios/lib/screen.py" expect-like "$VM_OUT/expected-$_name.png" \
    --rotation "$HOST_ROTATION" --exclude $HOST_ATTRACT --save "$VM_OUT/$_name.png" "$@"
}

# Expected pictures A and B differ, so a check against one cannot pass on the other.
host_differ() {
  python3 "$VM_DIR/scenarios/lib/screen.py" differ "$VM_OUT/expected-$1.png" "$VM_OUT/expected-$2.png" \
    --rotation "$HOST_ROTATION"
}
