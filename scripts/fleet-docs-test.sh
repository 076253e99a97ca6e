#!/usr/bin/env bash
# Runs docs/FLEET.md's steps in its order against a real PostgreSQL started here (initdb +
# pg_ctl in a temporary directory, as nobody when run as root), with TLS from the CA that
# deploy/fleet-certs.sh makes and every TCP login over hostssl + SCRAM, as the doc sets up:
# fleet init, add-kiosk (sslmode=verify-full), add-operator (its pg_service.conf entry and
# .pgpass line, used as printed), publish, a kiosk's rescue sync, the fleet report and the
# status check. Only what a real machine has elsewhere is replaced: paths under /etc and the
# host name (localhost, which the certificate names). Exits 1 at the first step that fails.
# Usage: scripts/fleet-docs-test.sh   (needs a built binary, postgresql, openssl, psql)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/${KIOSK_BIN:-.build/debug/KioskCards}
pgbin=${PG_BIN:-$(find /usr/lib/postgresql -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -1)}
[ -x "$bin" ] || { echo "fleet-docs-test: build first: swift build" >&2; exit 2; }
[ -x "$pgbin/initdb" ] || { echo "fleet-docs-test: no PostgreSQL server binaries: apt-get install postgresql" >&2; exit 2; }
command -v openssl >/dev/null || { echo "fleet-docs-test: needs openssl" >&2; exit 2; }
command -v psql >/dev/null || { echo "fleet-docs-test: needs psql (postgresql-client)" >&2; exit 2; }

work=$(mktemp -d /tmp/kioskcards-fleet-docs-XXXXXX)
as_server=()
if [ "$(id -u)" = 0 ]; then
  chown nobody "$work"
  as_server=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cleanup() {
  "${as_server[@]}" "$pgbin/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "fleet-docs-test: $*" >&2
  exit 1
}
step() { echo "== $*"; }

step "TLS: deploy/fleet-certs.sh makes the CA and the server's certificate"
mkdir "$work/tls"
sh deploy/fleet-certs.sh "$work/tls" localhost >/dev/null 2>&1 || fail "fleet-certs.sh failed"
[ "$(id -u)" = 0 ] && chown nobody "$work/tls/server.key" "$work/tls/server.crt"

step "The central server: postgresql.conf and pg_hba.conf as docs/FLEET.md shows them"
"${as_server[@]}" "$pgbin/initdb" -D "$work/pg" -U postgres --auth-local=trust >"$work/initdb.log" 2>&1 ||
  fail "initdb failed: $work/initdb.log"
cat >>"$work/pg/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$work'
ssl = on
ssl_cert_file = '$work/tls/server.crt'
ssl_key_file = '$work/tls/server.key'
EOF
cat >"$work/pg/pg_hba.conf" <<EOF
local all postgres trust
hostssl kioskfleet +fleet_kiosk    0.0.0.0/0  scram-sha-256
hostssl kioskfleet +fleet_operator 0.0.0.0/0  scram-sha-256
EOF
"${as_server[@]}" "$pgbin/pg_ctl" -D "$work/pg" -l "$work/server.log" -w -t 60 start >/dev/null ||
  fail "PostgreSQL did not start: $work/server.log"
psql -q -h "$work" -p "$port" -U postgres -d postgres -c 'CREATE DATABASE kioskfleet' || fail "createdb failed"
owner="postgresql:///kioskfleet?host=$work&port=$port&user=postgres"

step "fleet init"
"$bin" fleet init --postgres "$owner" >"$work/init.out" || fail "fleet init failed"
version=$(sed -n 's/^fleet init: created the fleet schema (version \([0-9]*\))$/\1/p' "$work/init.out")
listed=$(sed -n '/^fleet init: created the fleet schema/,/^```/p' docs/FLEET.md | grep -v '^```')
[ "$listed" = "$(cat "$work/init.out")" ] || {
  diff <(printf '%s\n' "$listed") "$work/init.out" >&2 || true
  fail "docs/FLEET.md's fleet init listing is not what fleet init prints"
}
"$bin" fleet init --postgres "$owner" | grep -qx "fleet init: schema is up to date (version $version); nothing to do" ||
  fail "a second fleet init is not a no-op"

step "Adding a kiosk (verify-full)"
"$bin" fleet add-kiosk lobby-1 --postgres "$owner" --credentials "$work/lobby-1.password" \
  --kiosk-host localhost --kiosk-ca "$work/tls/ca.crt" >"$work/lobby-1.conf" 2>"$work/add-kiosk.err" ||
  fail "add-kiosk failed: $(cat "$work/add-kiosk.err")"
grep -q '^fleet-url = postgresql://kiosk_lobby-1@localhost/kioskfleet?.*sslmode=verify-full' "$work/lobby-1.conf" ||
  fail "add-kiosk printed no verify-full fleet-url: $(cat "$work/lobby-1.conf")"
grep -qx 'fleet-credentials = /etc/kioskcards/lobby-1.password' "$work/lobby-1.conf" ||
  fail "add-kiosk printed another credentials path than the kiosk's"
# On a kiosk: the printed lines in kiosk.conf, the password file where they say.
sed "s|^fleet-credentials = .*|fleet-credentials = $work/lobby-1.password|" "$work/lobby-1.conf" >"$work/kiosk.conf"
echo "data = $work/kiosk-data" >>"$work/kiosk.conf"
[ "$(id -u)" = 0 ] && chown nobody "$work/kiosk.conf" "$work/lobby-1.password"

step "Operators: add-operator's pg_service.conf entry and .pgpass line"
"$bin" fleet add-operator alice --postgres "$owner" --operator-host localhost >"$work/alice.out" 2>/dev/null ||
  fail "add-operator failed"
grep -q '://' "$work/alice.out" && fail "add-operator printed a URL"
# The entry, with the TLS settings added by hand as the doc says for a socket --postgres.
sed -n '/^\[kioskfleet\]$/,/^#/p' "$work/alice.out" | grep -v '^#' >"$work/pg_service.conf"
printf 'sslmode=verify-full\nsslrootcert=%s\n' "$work/tls/ca.crt" >>"$work/pg_service.conf"
grep -A1 '^# ~/.pgpass' "$work/alice.out" | tail -1 >"$work/pgpass"
chmod 600 "$work/pgpass" "$work/pg_service.conf"
export PGSERVICEFILE=$work/pg_service.conf PGPASSFILE=$work/pgpass
tls=$(psql -qAt "service=kioskfleet" -c 'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()') ||
  fail "the operator cannot log in with the printed entry and line"
[ "$tls" = t ] || fail "the operator's connection is not TLS"

step "Publishing a deck (as the operator)"
"$bin" fleet publish examples/seed-stack.json --kiosk lobby-1 --postgres service=kioskfleet >"$work/publish.out" ||
  fail "publish failed"
"$bin" fleet publish examples/seed-stack.json --kiosk lobby-1 --postgres service=kioskfleet >/dev/null ||
  fail "publishing the same deck again was refused"

step "A kiosk's decisions, sent by a rescue sync (fleet sync --once)"
"$bin" simulate --deck examples/seed-stack.json --data "$work/kiosk-data" --visitors 30 --kiosk lobby-1 \
  >/dev/null 2>&1 || fail "simulate failed"
[ "$(id -u)" = 0 ] && chown -R nobody "$work/kiosk-data"
# HOME: libpq looks for a client certificate under ~/.postgresql (root's, when run as root).
"${as_server[@]}" env HOME="$work" "$bin" fleet sync --config "$work/kiosk.conf" --once 2>"$work/sync.err" ||
  fail "fleet sync --once failed: $(cat "$work/sync.err")"
local_count=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from decisions").fetchone()[0])' \
  "$work/kiosk-data/decisions.sqlite3")
central=$(psql -qAt "service=kioskfleet" -c "SELECT count(*) FROM fleet.decisions WHERE kiosk_id = 'lobby-1'")
if [ "$central" != "$local_count" ] || [ "$central" -eq 0 ]; then
  fail "central $central decisions, the kiosk has $local_count"
fi

step "The fleet report (report --postgres, as the operator)"
"$bin" report --postgres service=kioskfleet --out "$work/fleet.html" 2>"$work/report.err" ||
  fail "report failed: $(cat "$work/report.err")"
grep -q 'lobby-1' "$work/fleet.html" || fail "the report does not name lobby-1"

step "The status check (fleet status --attention)"
set +e
"$bin" fleet status --postgres service=kioskfleet --attention >"$work/attention.out"
status=$?
set -e
# Only a rescue sync was heard from: the kiosk is silent, and the check says so.
[ "$status" = 1 ] || fail "fleet status --attention exited $status, not 1"
grep -q '^lobby-1: silent since .*(only fleet sync was heard from)$' "$work/attention.out" ||
  fail "unexpected attention lines: $(cat "$work/attention.out")"
[ "$(wc -l <"$work/attention.out")" = 1 ] || fail "more than one attention line"
echo "fleet-docs-test: docs/FLEET.md's steps ran: schema $version, $central decisions, report and check (verify-full)"
