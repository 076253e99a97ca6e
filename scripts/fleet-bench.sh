#!/usr/bin/env bash
# Load benchmark for the fleet sync (docs/FLEET.md): KIOSKS kiosks, each writing DECISIONS
# decisions through the real DecisionStore (`KioskCards store-stress`) while its own
# `KioskCards fleet sync` sends them to a PostgreSQL started here (initdb + pg_ctl in a
# temporary directory, as nobody when run as root). During the run PostgreSQL is stopped
# (-m immediate) and started again once, and 10 % of the sync processes are SIGKILLed and
# started again. Prints decisions ingested per second, p50/p99 sync lag (stored locally →
# committed centrally) and the lost and extra rows (the central rows compared with each
# kiosk's local rows); exits 1 when any is lost or extra. Asserts nothing about time.
# Usage: KIOSKS=200 DECISIONS=5000 scripts/fleet-bench.sh   (defaults: 20 × 5000)
set -euo pipefail
cd "$(dirname "$0")/.."
KIOSKS=${KIOSKS:-20}
DECISIONS=${DECISIONS:-5000}
bin=${KIOSK_BIN:-.build/debug/KioskCards}
pgbin=${PG_BIN:-$(find /usr/lib/postgresql -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -1)}
[ -x "$bin" ] || { echo "fleet-bench: build first: swift build" >&2; exit 2; }
[ -x "$pgbin/initdb" ] || { echo "fleet-bench: no PostgreSQL server binaries: apt-get install postgresql" >&2; exit 2; }

work=$(mktemp -d /tmp/kioskcards-fleet-bench-XXXXXX)
as_server=()
if [ "$(id -u)" = 0 ]; then
  chown nobody "$work"
  as_server=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pg_start() {
  "${as_server[@]}" "$pgbin/pg_ctl" -D "$work/pg" -l "$work/server.log" -w -t 60 \
    -o "-k $work -p $port -c listen_addresses=127.0.0.1 -c max_connections=$((KIOSKS + 40))" start >/dev/null
}
pg_stop() { "${as_server[@]}" "$pgbin/pg_ctl" -D "$work/pg" -m "$1" -w stop >/dev/null; }
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  pg_stop fast 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

"${as_server[@]}" "$pgbin/initdb" -D "$work/pg" -U fleetadmin --auth-local=trust --auth-host=scram-sha-256 \
  --no-sync -E UTF8 --locale=C >"$work/initdb.log"
pg_start
admin="postgresql://fleetadmin@/postgres?host=$work&port=$port"
sql() { psql -qAtX "$admin" -c "$1"; }
"$bin" fleet init --postgres "$admin" >/dev/null

echo "fleet-bench: $KIOSKS kiosks × $DECISIONS decisions, PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port"
for k in $(seq 1 "$KIOSKS"); do
  "$bin" fleet add-kiosk "bench-$k" --postgres "$admin" --credentials "$work/bench-$k.password" \
    --kiosk-host 127.0.0.1 2>/dev/null | grep '^fleet-url' >"$work/bench-$k.conf"
  printf 'data = %s\nfleet-credentials = %s\nfleet-heartbeat = 10s\n' "$work/data-$k" "$work/bench-$k.password" \
    >>"$work/bench-$k.conf"
  mkdir -p "$work/data-$k"
done

declare -A sync_pid
start_sync() { "$bin" fleet sync --config "$work/bench-$1.conf" 2>>"$work/sync-$1.log" & sync_pid[$1]=$!; pids+=($!); }
total=$((KIOSKS * DECISIONS))
t0=$(date +%s.%N)
for k in $(seq 1 "$KIOSKS"); do
  "$bin" store-stress --data "$work/data-$k" --run "bench-$k" --count "$DECISIONS" >/dev/null 2>&1 & pids+=($!)
  start_sync "$k"
done
central() { sql "SELECT count(*) FROM fleet.decisions" 2>/dev/null || echo 0; }
wait_for() { # wait_for N SECONDS: until the server holds at least N decisions
  local deadline=$(($(date +%s) + $2))
  while [ "$(central)" -lt "$1" ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.2; done
}

wait_for $((total / 10)) 600
echo "fleet-bench: $(central) ingested; stopping PostgreSQL (-m immediate) for 2 s"
pg_stop immediate
sleep 2
pg_start
wait_for $((total / 2)) 600
victims=$(( (KIOSKS + 9) / 10 ))
echo "fleet-bench: $(central) ingested; SIGKILL and restart of $victims sync process(es)"
for k in $(seq 1 "$victims"); do { kill -9 "${sync_pid[$k]}" && wait "${sync_pid[$k]}"; } 2>/dev/null || true; done
sleep 0.5
for k in $(seq 1 "$victims"); do start_sync "$k"; done
wait_for "$total" 1800
t1=$(date +%s.%N)

# The central rows against the kiosks' own, row by row ("KIOSK UID" lines, sorted): a row
# missing centrally is lost; a central row no kiosk holds (or holds fewer times) is extra.
for k in $(seq 1 "$KIOSKS"); do
  "$bin" export --data "$work/data-$k" --format json 2>/dev/null |
    python3 -c 'import json, sys; [print(sys.argv[1], d["uid"]) for d in json.load(sys.stdin)]' "bench-$k"
done | sort >"$work/local.txt"
sql "SELECT kiosk_id || ' ' || decision_uid FROM fleet.decisions" | sort >"$work/central.txt"
produced=$(wc -l <"$work/local.txt")
lost=$(comm -23 "$work/local.txt" "$work/central.txt" | wc -l)
extra=$(comm -13 "$work/local.txt" "$work/central.txt" | wc -l)
read -r rows first_last p50 p99 max < <(sql "
  SELECT count(*),
         round(extract(epoch FROM max(received_at) - min(received_at))::numeric, 3),
         round((percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM received_at - wall_time)) * 1000)::numeric, 1),
         round((percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM received_at - wall_time)) * 1000)::numeric, 1),
         round((max(extract(epoch FROM received_at - wall_time)) * 1000)::numeric, 1)
  FROM fleet.decisions" | tr '|' ' ')
elapsed=$(python3 -c "print(f'{$t1 - $t0:.1f}')")
rate=$(python3 -c "print(f'{$rows / max($first_last, 0.001):.0f}')")
echo "fleet-bench: produced $produced (local SQLite), central rows $rows"
echo "fleet-bench: ingested $rows decisions in ${first_last} s (first to last receive) = $rate decisions/s; wall ${elapsed} s"
echo "fleet-bench: sync lag (stored locally → committed centrally) p50 ${p50} ms, p99 ${p99} ms, max ${max} ms"
echo "fleet-bench: lost $lost (produced, not central), extra $extra (central, produced by no kiosk or twice)"
[ "$lost" = 0 ] && [ "$extra" = 0 ]
