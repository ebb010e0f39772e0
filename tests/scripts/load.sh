#!/bin/bash
# load.sh: a bounded load on loopback (wrk, 32 connections, mixed sample, list and upload
# requests for LOAD_SECONDS, default 30) with zero errors and a health check answering during
# and after; then a slow client trickling its headers one byte a second must not hold up
# anyone else. Then hostile clients against a second daemon (tests/load/hostile): three that
# ask for a million samples of a 256-float track and read nothing (the daemon's memory must
# stay bounded), 270 slowloris connections from 127.0.0.2-10 for 20 s (127.0.0.1 must be
# answered within a second throughout), and four 60 MiB uploads declared at once under
# --upload-memory 150M (two admitted, two refused at once). Prints "PASS: x" / "FAIL: x".
set -u
src=${ANIMDEX_SRCDIR:-.}
seconds=${LOAD_SECONDS:-30}
dir=$(mktemp -d /tmp/animdex-load-XXXXXX)
status=0
check() { # name ok detail
	if [ "$2" = 0 ]; then echo "PASS: $1"; else echo "FAIL: $1 ($3)"; status=1; fi
}
if ! command -v wrk >/dev/null 2>&1; then
	echo "FAIL: load: wrk is needed (build-aux/install-deps test installs it)"
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

# Hostile clients, against a daemon with answer and upload budgets
hostile=$(dirname "$ANIMDEXD")/tests/load/hostile
rss() { sed -n "s/^$2:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$1/status"; }
"$ANIMDEXD" --listen 127.0.0.1:0 --db "$dir/hostile.db" --www "$src/www" --quiet \
	--max-samples 1000000 --answer-memory 64M --upload-memory 150M >"$dir/out2" 2>"$dir/err2" &
daemon=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do
	grep -q listening "$dir/out2" 2>/dev/null && break
	sleep 0.2
done
base=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$dir/out2")
port=${base##*:}
"$hostile" matrix-clip >"$dir/matrix.json"
curl -s -o /dev/null --data-binary @"$dir/matrix.json" "$base/api/resources?filename=m.json"
before=$(rss "$daemon" VmRSS)
"$hostile" unread "$port" '/api/resources/1/tracks/0/sample?from=0&to=1&count=1000000' 3 5 &
reader=$!
sleep 3
held=$(rss "$daemon" VmRSS)
code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$base/api/health")
wait "$reader"
echo "hostile: daemon RSS ${before} KiB before, ${held} KiB while three clients left 1M-sample answers unread (each some 2.5 GB of JSON)"
check "hostile: unread large answers keep the daemon's memory bounded (+$((held - before)) KiB)" \
	"$([ $((held - before)) -lt 49152 ] && [ "$code" = 200 ] && echo 0 || echo 1)" "health $code"
"$hostile" slowloris "$port" 270 20 >"$dir/slowloris" &
attack=$!
sleep 1
worst=0
bad=0
for _ in $(seq 1 17); do
	out=$(curl -s -o /dev/null -m 3 -w '%{http_code} %{time_total}' "$base/api/health")
	[ "${out%% *}" = 200 ] || bad=$((bad + 1))
	worst=$(echo "${out##* } $worst" | awk '{print ($1 > $2) ? $1 : $2}')
	sleep 1
done
wait "$attack"
cat "$dir/slowloris"
closed=$(sed -n 's/.* \([0-9]*\) closed by the server.*/\1/p' "$dir/slowloris")
check "hostile: 270 slowloris connections keep nobody out (slowest answer ${worst} s)" \
	"$([ "$bad" = 0 ] && echo "$worst" | awk '{print ($1 < 1.0) ? 0 : 1}')" "$bad failed, slowest ${worst} s"
check "hostile: slowloris connections are closed after --header-timeout ($closed of 270)" \
	"$([ "${closed:-0}" -ge 250 ] && echo 0 || echo 1)" "$closed closed"
"$hostile" uploads "$port" 62914560 4 >"$dir/uploads"
cat "$dir/uploads"
peak=$(rss "$daemon" VmHWM)
echo "hostile: peak RSS of the daemon over these attacks: ${peak} KiB"
check "hostile: 60 MiB uploads under --upload-memory 150M: as many as fit" \
	"$(grep -q '2 admitted, 2 refused with 503, 0 otherwise' "$dir/uploads" && echo 0 || echo 1)" "$(cat "$dir/uploads")"
kill -TERM "$daemon"
wait "$daemon"
code=$?
check "hostile: the daemon stops cleanly afterwards" "$code" "exit $code"
rm -rf "$dir"
exit $status
