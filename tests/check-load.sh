#!/bin/bash
# check-load.sh: a bounded load on loopback (wrk, 32 connections, mixed sample, list and upload
# requests for LOAD_SECONDS, default 30) with zero errors and a health check answering during
# and after; then a slow client trickling its headers one byte a second must not hold up
# anyone else. Prints "PASS: x" / "FAIL: x" per check.
set -u
src=${ANIMDEX_SRCDIR:-.}
seconds=${LOAD_SECONDS:-30}
dir=$(mktemp -d /tmp/animdex-load-XXXXXX)
status=0
check() { # name ok detail
	if [ "$2" = 0 ]; then echo "PASS: $1"; else echo "FAIL: $1 ($3)"; status=1; fi
}
if ! command -v wrk >/dev/null 2>&1; then
	echo "FAIL: load: wrk is needed (./autogen.sh installs it)"
	exit 1
fi
"$ANIMDEXD" --listen 127.0.0.1:0 --db "$dir/load.db" --www "$src/www" --quiet \
	--max-connections-per-ip 128 >"$dir/out" 2>"$dir/err" &
daemon=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do
	grep -q listening "$dir/out" 2>/dev/null && break
	sleep 0.2
done
base=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$dir/out")
curl -s -o /dev/null --data-binary @"$src/tests/data/radient/valid/walk.json" \
	"$base/api/resources?filename=walk.json"
SAMPLE_PATH="/api/resources/1/tracks/0/sample?t=0.25,0.5,0.75"
export SAMPLE_PATH
# health, once a second during the load
(
	while [ ! -e "$dir/stop" ]; do
		curl -s -o /dev/null -m 2 -w '%{http_code}\n' "$base/api/health" >>"$dir/health"
		sleep 1
	done
) &
poller=$!
wrk -t 2 -c 32 -d "${seconds}s" --timeout 5s -s "$src/tests/load/mixed.lua" "$base" >"$dir/wrk" 2>&1
touch "$dir/stop"
wait "$poller"
line=$(grep '^load:' "$dir/wrk")
echo "$line"
grep -E 'Requests/sec|Latency' "$dir/wrk"
errors=$(echo "$line" | sed -n 's/.* \([0-9]*\) errors .*/\1/p')
sockets=$(echo "$line" | sed -n 's/.* \([0-9]*\) socket errors.*/\1/p')
check "load: no request failed" "$([ "${errors:-1}" = 0 ] && [ "${sockets:-1}" = 0 ] && echo 0 || echo 1)" "$line"
bad=$(grep -vc '^200$' "$dir/health")
check "load: the health check answered during the load" "$([ "$bad" = 0 ] && [ -s "$dir/health" ] && echo 0 || echo 1)" "$(tr '\n' ' ' <"$dir/health")"
after=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$base/api/health")
check "load: the health check answers after it" "$([ "$after" = 200 ] && echo 0 || echo 1)" "$after"
# a slow client: headers trickled a byte a second
port=${base##*:}
(
	exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
	touch "$dir/slow-connected"
	for c in G E T ' ' / a p i; do
		printf '%s' "$c" >&3
		sleep 1
	done
	exec 3>&-
) &
slow=$!
sleep 1
worst=0
for _ in 1 2 3 4 5 6 7 8 9 10; do
	t=$(curl -s -o /dev/null -m 5 -w '%{time_total}' "$base/api/health")
	worst=$(echo "$t $worst" | awk '{print ($1 > $2) ? $1 : $2}')
	sleep 0.3
done
wait "$slow" 2>/dev/null
check "load: a slow client does not hold up others (slowest answer ${worst} s)" \
	"$([ -e "$dir/slow-connected" ] && echo "$worst" | awk '{print ($1 < 1.0) ? 0 : 1}' || echo 1)" \
	"slowest ${worst} s; slow client connected: $([ -e "$dir/slow-connected" ] && echo yes || echo no)"
kill -TERM "$daemon"
wait "$daemon"
code=$?
check "load: the daemon stops cleanly afterwards" "$code" "exit $code"
rm -rf "$dir"
exit $status
