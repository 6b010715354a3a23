#!/usr/bin/env bash
# The production layout of docs/deploy.md, tested as written: runs every ```bash block of
# that page in order (the same shell, so its settings and functions carry over), with the
# node being `starkgraph sim`, then puts load on the layout, stops one API replica and then
# the indexer, and checks that reads keep working, that keys and rate limits hold across
# replicas (Redis), that the indexer resumes where it stopped and that replica lag is
# reported. Stops everything it started when it ends.
#
# Run from the repository root: SG=/some/dir [PORTS...] deploy/layout-test.sh
# (TestProductionLayout runs it with a fresh directory and free ports.)
set -euo pipefail
cd "$(dirname "$0")/.."

: "${SG:?set SG to a fresh directory (as root, one the postgres user can enter)}"
: "${SIM_PORT:=9545}"
export STARKNET_RPC_URL="http://127.0.0.1:$SIM_PORT/rpc/v0_8"
if [ -z "${PGBIN:-}" ] && ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
	PGBIN="$(dirname "$(command -v initdb)")" # PostgreSQL from elsewhere than Debian's package
fi
: "${PG_SHARED_BUFFERS:=128MB}"

step() { printf '\n=== %s (%ss)\n' "$*" "$SECONDS"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

cleanup() {
	set +e
	[ -f "$SG/run/nginx.pid" ] && nginx -c "$SG/nginx/nginx.conf" -p "$SG/nginx" -s stop 2>/dev/null
	stop_load
	for name in api1 api2 index sim; do
		[ -f "$SG/run/$name.pid" ] && kill "$(cat "$SG/run/$name.pid")" 2>/dev/null
	done
	[ -f "$SG/run/redis.pid" ] && kill "$(cat "$SG/run/redis.pid")" 2>/dev/null
	for pg in replica primary; do
		[ -d "$SG/pg/$pg" ] && as_postgres "$PGBIN/pg_ctl" -D "$SG/pg/$pg" -m fast -w stop >/dev/null 2>&1
	done
	wait 2>/dev/null
}
stop_load() {
	if [ -f "$SG/run/load.pids" ]; then
		while read -r pid; do kill "$pid" 2>/dev/null; done <"$SG/run/load.pids"
		rm -f "$SG/run/load.pids"
	fi
	return 0
}
as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
trap cleanup EXIT
trap "exit 130" INT TERM

# The steps of docs/deploy.md: every ```bash block, in order, sections 1 and 2 (settings,
# the binary) first; then the node the layout follows starts (the page's indexer starts in
# section 6): a chain of 20 blocks growing by one every 2 s.
mkdir -p "$SG"
blocks() { awk -v from="$1" -v to="$2" '/^```bash$/ {n++; on=(n>=from && n<=to); next} /^```$/ {on=0} on' docs/deploy.md; }
blocks 1 2 >"$SG/deploy-steps-1.sh"
blocks 3 1000 >"$SG/deploy-steps-2.sh"
steps="$SG/deploy-steps-2.sh"
[ "$(grep -c . "$steps")" -gt 50 ] || fail "no bash blocks found in docs/deploy.md"

step "docs/deploy.md, sections 1 and 2: settings, the binary"
# shellcheck source=/dev/null
source "$SG/deploy-steps-1.sh"
start_bg sim "$SG/bin/starkgraph" sim --addr "127.0.0.1:$SIM_PORT" --blocks 20 --block-time 2s --tx-per-block 5
for _ in $(seq 100); do
	curl -fsS -o /dev/null -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"starknet_blockNumber"}' \
		"$STARKNET_RPC_URL" 2>/dev/null && break
	sleep 0.1
done

step "docs/deploy.md, sections 3 to 10, as written"
# shellcheck source=/dev/null
source "$steps"
KEY="$(cat "$SG/run/first-key")"
PUBLIC="http://127.0.0.1:$PUBLIC_PORT"
API1="http://127.0.0.1:$API1_PORT"
API2="http://127.0.0.1:$API2_PORT"
DEVKEY="$("$SG/bin/starkgraph" keys create --plan dev --label "layout test load" | tail -n1)"
psql_primary() { as_postgres "$PGBIN/psql" -h "$SG/pg" -p "$PRIMARY_PORT" -U postgres -d starkgraph -Atc "$1"; }
psql_replica() { as_postgres "$PGBIN/psql" -h "$SG/pg" -p "$REPLICA_PORT" -U postgres -d starkgraph -Atc "$1"; }
head_block() { psql_primary "SELECT coalesce(max(number), -1) FROM blocks"; }

step "the indexer follows the node"
for _ in $(seq 600); do [ "$(head_block)" -ge 19 ] && break; sleep 0.1; done
[ "$(head_block)" -ge 19 ] || fail "the indexer did not reach block 19: head $(head_block)"

step "load on the public address for the rest of the test"
# Four clients, REST and GraphQL, each request's status code logged.
load() {
	local i=0
	while :; do
		i=$((i + 1))
		curl -s -o /dev/null -w '%{http_code} rest\n' "$PUBLIC/beta/blocks?ps=10" -H "x-api-key: $DEVKEY"
		curl -s -o /dev/null -w '%{http_code} rest\n' "$PUBLIC/beta/txns?ps=10" -H "x-api-key: $DEVKEY"
		curl -s -o /dev/null -w '%{http_code} graphql\n' "$PUBLIC/graphql" -H "x-api-key: $DEVKEY" \
			-H 'content-type: application/json' -d '{"query":"{ blocks(first: 5) { edges { node { number txnCount } } } }"}'
	done
}
for _ in 1 2 3 4; do
	load >>"$SG/log/load.codes" 2>&1 &
	echo $! >>"$SG/run/load.pids"
done
sleep 3

step "a key works on both replicas; its rate limit is one across them (Redis)"
for api in "$API1" "$API2"; do
	code=$(curl -s -o /dev/null -w '%{http_code}' "$api/beta/stats" -H "x-api-key: $DEVKEY")
	[ "$code" = 200 ] || fail "the dev key got $code from $api"
done
# A plan of 10 requests and next to no refill (servers see a new plan within 5 s): with
# the counters in Redis, 40 requests sent at once, half to each replica, are admitted 10
# times; with a bucket per replica they would be admitted 20 times.
psql_primary "INSERT INTO plans (name, rate_per_second, burst) VALUES ('layout_test', 0.01, 10)" >/dev/null
LIMITED="$("$SG/bin/starkgraph" keys create --plan layout_test --label "limit across replicas" | tail -n1)"
curls=()
for i in $(seq 40); do
	api=$API1; [ $((i % 2)) -eq 0 ] && api=$API2
	curl -s -o /dev/null -w '%{http_code}\n' "$api/beta/stats" -H "x-api-key: $LIMITED" >>"$SG/log/limited.codes" &
	curls+=($!)
done
for pid in "${curls[@]}"; do wait "$pid" || true; done
ok=$(grep -c '^200$' "$SG/log/limited.codes" || true)
refused=$(grep -c '^429$' "$SG/log/limited.codes" || true)
echo "a plan of burst 10: $ok admitted, $refused refused of 40 sent at once, half to each replica"
[ "$((ok + refused))" -eq 40 ] || fail "unexpected answers: $(sort "$SG/log/limited.codes" | uniq -c)"
[ "$ok" -le 11 ] || fail "the key was admitted $ok times of 40 with a burst of 10: limits are not shared across replicas"
[ "$ok" -ge 10 ] || fail "the key was admitted only $ok times with a burst of 10"

step "stop the first API replica: reads through nginx keep working"
kill "$(cat "$SG/run/api1.pid")"
before=$(wc -l <"$SG/log/load.codes")
bad=0
for i in $(seq 20); do
	code=$(curl -s -o /dev/null -w '%{http_code}' "$PUBLIC/beta/blocks?ps=10" -H "x-api-key: $DEVKEY")
	case $code in 200) ;; *) bad=$((bad + 1)); echo "request $i after the stop: $code" ;; esac
done
[ "$bad" -eq 0 ] || fail "$bad of 20 reads failed through nginx after one API replica stopped"
sleep 2
after=$(wc -l <"$SG/log/load.codes")
echo "the load made $((after - before)) requests meanwhile"

step "stop the indexer; start it again: it resumes where it stopped"
kill "$(cat "$SG/run/index.pid")"
while kill -0 "$(cat "$SG/run/index.pid")" 2>/dev/null; do sleep 0.1; done
stopped=$(head_block)
sleep 3
[ "$(head_block)" -eq "$stopped" ] || fail "the database moved on with the indexer stopped"
grep -q 'start_bg index' "$steps" || fail "docs/deploy.md has no indexer start to run again"
eval "$(grep -E '^(start_bg index|wait_http .*INDEX_ADMIN_PORT)' "$steps")" # section 6, as written
for _ in $(seq 600); do [ "$(head_block)" -gt "$((stopped + 2))" ] && break; sleep 0.1; done
resumed=$(head_block)
[ "$resumed" -gt "$((stopped + 2))" ] || fail "the restarted indexer did not move on from block $stopped (head $resumed)"
gaps=$(psql_primary "SELECT count(*) FROM generate_series(0, $resumed) n WHERE NOT EXISTS (SELECT 1 FROM blocks WHERE number = n)")
[ "$gaps" -eq 0 ] || fail "$gaps blocks missing below $resumed after the restart"
grep -q 'level=ERROR' "$SG/log/index.log" && fail "the indexer logged errors: $(grep level=ERROR "$SG/log/index.log" | head -n3)"
echo "stopped at block $stopped, resumed to $resumed with no gap"

step "replica lag is reported"
lag_of() { curl -fsS "$PUBLIC/beta/api-status" -H "x-api-key: $DEVKEY" | sed -n 's/.*"replicaLagSeconds":\([0-9.e+-]*\).*/\1/p' | head -n1; }
[ -n "$(lag_of)" ] || fail "api-status has no replicaLagSeconds: $(curl -s "$PUBLIC/beta/api-status" -H "x-api-key: $DEVKEY")"
psql_replica "SELECT pg_wal_replay_pause()" >/dev/null
lagged=""
for _ in $(seq 100); do
	l=$(lag_of)
	if awk -v l="$l" 'BEGIN { exit !(l >= 1) }'; then lagged=$l; break; fi
	sleep 0.1
done
[ -n "$lagged" ] || fail "with replay paused, api-status never reported a lag of a second"
metric=$(curl -fsS "http://127.0.0.1:$API2_ADMIN_PORT/metrics" | awk '$1 == "db_replica_lag_seconds" { print $2 }')
awk -v m="$metric" 'BEGIN { exit !(m >= 1) }' || fail "db_replica_lag_seconds is '$metric' on /metrics while replay is paused"
psql_replica "SELECT pg_wal_replay_resume()" >/dev/null
resumed_lag=
for _ in $(seq 300); do resumed_lag=$(lag_of); [ "$resumed_lag" = 0 ] && break; sleep 0.2; done
[ "$resumed_lag" = 0 ] || fail "the resumed replica still reports a lag of $resumed_lag after a minute"
echo "paused replica: replicaLagSeconds $lagged, db_replica_lag_seconds $metric; resumed: 0"

step "the load's requests"
stop_load
sleep 0.5
total=$(wc -l <"$SG/log/load.codes")
failed=$(grep -cv '^200 ' "$SG/log/load.codes" || true)
echo "load: $total requests, $failed not 200"
{ grep -v '^200 ' "$SG/log/load.codes" || true; } | sort | uniq -c | head
[ "$total" -ge 100 ] || fail "the load made only $total requests"
[ "$failed" -eq 0 ] || fail "$failed requests of the load failed"

step "done"
echo "PASS: the layout of docs/deploy.md works as written (${SECONDS}s)"
