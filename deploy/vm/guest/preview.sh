# shellcheck shell=sh
# The preview's guest side (packed as /lib/kiosk/preview.sh; deploy/vm/preview.sh writes the
# one-line scenario that calls it). Runs `KioskCards run` on the host's deck folder and hands
# the decisions back to the host's data folder.
#
#   kiosk_preview DECK HOSTDATA [APP ARGUMENTS...]
#
# DECK is in the host's deck folder, mounted read-only over 9p at /deck: the app's DeckWatcher
# sees that it is on 9p (statfs) and polls it every second, so an edit on the host reloads.
# SQLite cannot keep its database on 9p (no shared mmap for the WAL index; `--data /share/…`
# fails with a disk I/O error), so the app writes to a local folder, $PREVIEW_DATA, and this
# copies it to HOSTDATA (the host's --data folder, 9p read-write at /hostdata):
#   - at start, HOSTDATA/decisions.sqlite3 (a previous preview's) is copied in, so a preview
#     continues where the last one stopped;
#   - while it runs, 2 s after each new decision: HOSTDATA/decisions.csv (`KioskCards export`);
#   - on exit (the host's Ctrl-C writes /share/stop: SIGTERM, the store flushes): the CSV and
#     the database itself, HOSTDATA/decisions.sqlite3, so `KioskCards export|report --data
#     HOSTDATA` work on the host. Each file is written beside and renamed over the old one.
# Returns the app's exit status.

PREVIEW_DATA=/tmp/kiosk-data
PREVIEW_LOG=/tmp/app.log

kiosk_preview() {
  _deck=$1 _host=$2
  shift 2
  if [ ! -r "$_deck" ]; then
    echo "preview: cannot read the deck $_deck in the shared folder" >&2
    ls -la "$(dirname "$_deck")" >&2 || true
    return 2
  fi
  mkdir -p "$PREVIEW_DATA"
  if [ -s "$_host/decisions.sqlite3" ]; then
    cp "$_host/decisions.sqlite3" "$PREVIEW_DATA/decisions.sqlite3"
    echo "preview: continuing with the decisions in the host's $_host/decisions.sqlite3"
  fi
  : >"$PREVIEW_LOG"
  KioskCards run --deck "$_deck" --data "$PREVIEW_DATA" "$@" >>"$PREVIEW_LOG" 2>&1 &
  _app=$!
  tail -f "$PREVIEW_LOG" >/dev/console 2>&1 &
  _tail=$!
  _seen=0 _exported=0 _quiet=0 _tries=0 _base=0
  if [ -s "$PREVIEW_DATA/decisions.sqlite3" ] && _preview_csv "$_host"; then _base=$_PREVIEW_ROWS; fi
  while kill -0 "$_app" 2>/dev/null; do
    if [ -e /share/stop ]; then
      echo "preview: the host asked to stop; SIGTERM to the app"
      kill -TERM "$_app" 2>/dev/null || true
      break
    fi
    _n=$(grep -c 'decision: ' "$PREVIEW_LOG" || true)
    if [ "$_n" != "$_seen" ]; then
      _seen=$_n _quiet=0
    elif [ "$_seen" != "$_exported" ]; then
      _quiet=$((_quiet + 1))
      # 2 s without a new decision: the store has written them; export. Until the rows are
      # all there (a slow store), again every 2 s, five times at most.
      if [ "$_quiet" -ge 4 ] && _preview_csv "$_host"; then
        _quiet=0 _tries=$((_tries + 1))
        if [ "$_PREVIEW_ROWS" -ge $((_base + _seen)) ] || [ "$_tries" -ge 5 ]; then _exported=$_seen _tries=0; fi
      fi
    fi
    usleep 500000
  done
  _status=0
  wait "$_app" || _status=$?
  echo "preview: the app exited with status $_status"
  if ! _preview_csv "$_host" && [ "$_status" = 0 ]; then _status=1; fi
  _preview_database "$_host" || true
  kill "$_tail" 2>/dev/null || true
  return "$_status"
}

# HOSTDATA/decisions.csv from the local store; prints how many rows.
_preview_csv() {
  if ! KioskCards export --data "$PREVIEW_DATA" --format csv >"$1/.decisions.csv.part" 2>/tmp/export.err; then
    echo "preview: export failed: $(cat /tmp/export.err)" >&2
    return 1
  fi
  mv -f "$1/.decisions.csv.part" "$1/decisions.csv"
  _PREVIEW_ROWS=$(($(wc -l <"$1/decisions.csv") - 1))
  echo "preview: exported $_PREVIEW_ROWS decisions to the host's $1/decisions.csv"
}

# HOSTDATA/decisions.sqlite3 (with its WAL when the store left one), after the app exited.
_preview_database() {
  [ -s "$PREVIEW_DATA/decisions.sqlite3" ] || return 0
  cp "$PREVIEW_DATA/decisions.sqlite3" "$1/.decisions.sqlite3.part"
  rm -f "$1/decisions.sqlite3-wal" "$1/decisions.sqlite3-shm"
  if [ -s "$PREVIEW_DATA/decisions.sqlite3-wal" ]; then
    cp "$PREVIEW_DATA/decisions.sqlite3-wal" "$1/decisions.sqlite3-wal"
  fi
  mv -f "$1/.decisions.sqlite3.part" "$1/decisions.sqlite3"
  echo "preview: copied the database to the host's $1/decisions.sqlite3"
}
