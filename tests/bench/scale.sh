#!/bin/bash
# scale.sh: a large catalogue served under load (doc/reference.md, "Large catalogues"), on SQLite
# and on a throwaway PostgreSQL cluster: SCALE_ENTRIES entries (default 100,000, as `make bench`
# runs it; `make bench-scale` a million) made by tests/scale/generate.py and imported (the rate
# over the first and the last tenth of the files), then for each kind of request 32 connections
# for BENCH_SECONDS (default 5) drawing requests from a fixed seed: p99 and p50, with the
# daemon's peak memory. Among the entries, SCALE_RIGS rigs (default 10,000) made by
# tests/scale/rigs.py, for "which skeletons fit" and bone maps among them, each measured by one
# connection (the answer's own time) and by 32. Prints a table. Needs the built tree, wrk and
# curl.
set -u
src=${ANIMDEX_SRCDIR:-.}
bin=${ANIMDEX_BUILDDIR:-.}/animdexd
entries=${SCALE_ENTRIES:-100000}
seconds=${BENCH_SECONDS:-5}
rigs=${SCALE_RIGS:-10000}
dir=$(mktemp -d /tmp/animdex-bench-scale-XXXXXX)
daemon=
pgdir=
runas=()
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
cleanup() {
	[ -n "$daemon" ] && kill "$daemon" 2>/dev/null
	[ -n "$pgdir" ] && "${runas[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -m immediate -w stop >/dev/null 2>&1
	rm -rf "$dir" "$pgdir"
}
trap cleanup EXIT
row() { printf '%-62s %12s  %s\n' "$1" "$2" "$3"; }
files=$(((entries + 999) / 1000))
mkdir "$dir/files"
python3 "$src/tests/scale/generate.py" "$dir/files" "$files" 1000 || exit 1
mkdir "$dir/rigs"
python3 "$src/tests/scale/rigs.py" "$dir/rigs" "$rigs" || exit 1
tenth=$(((files + 9) / 10))
mkdir "$dir/first" "$dir/rest" "$dir/last"
ls "$dir/files" | head -n "$tenth" | while read -r f; do ln "$dir/files/$f" "$dir/first/$f"; done
ls "$dir/files" | tail -n +$((tenth + 1)) | head -n $((files - 2 * tenth)) | while read -r f; do ln "$dir/files/$f" "$dir/rest/$f"; done
ls "$dir/files" | tail -n "$tenth" | while read -r f; do ln "$dir/files/$f" "$dir/last/$f"; done
rate() { sed -n 's/.*in \([0-9.]*\) s .*: \([0-9]*\) entries created.*/\1 \2/p' | awk '{printf "%.0f", $2 / $1}'; }
import_all() { # db label
	local first last
	first=$("$bin" import --db "$1" "$dir/first" 2>&1 | tail -n 1 | rate)
	"$bin" import --db "$1" --quiet "$dir/rest" >/dev/null 2>&1
	last=$("$bin" import --db "$1" "$dir/last" 2>&1 | tail -n 1 | rate)
	row "$2: import, first tenth" "$first" "entries/s"
	row "$2: import, last tenth" "$last" "entries/s"
	row "$2: import, $rigs rigs in files of 1,000" "$("$bin" import --db "$1" "$dir/rigs" 2>&1 | tail -n 1 | rate)" "entries/s"
}
# one file of 10,000 clips beside ten of 1,000: the same entries, so the same rate when a file's
# clips are stored in linear time (a file's parts were once looked through once a part)
file_sizes() {
	local one ten
	mkdir "$dir/one" "$dir/ten"
	python3 "$src/tests/scale/generate.py" "$dir/one" 1 10000 || return
	python3 "$src/tests/scale/generate.py" "$dir/ten" 10 1000 || return
	one=$("$bin" import --db "$dir/one.db" --max-entries 10000 "$dir/one" 2>&1 | tail -n 1 | rate)
	ten=$("$bin" import --db "$dir/ten.db" "$dir/ten" 2>&1 | tail -n 1 | rate)
	row "SQLite: import, one file of 10,000 clips" "$one" "entries/s"
	row "SQLite: import, ten files of 1,000 clips" "$ten" "entries/s"
	row "  one file / ten files" "$(awk -v a="$one" -v b="$ten" 'BEGIN {printf "%.2f", a / b}')" "x (linear in a file's clips: about 1)"
	rm -rf "$dir/one" "$dir/ten" "$dir/one.db"* "$dir/ten.db"*
}
start() {
	"$bin" --listen 127.0.0.1:0 --db "$1" --quiet >"$dir/out" 2>"$dir/err" &
	daemon=$!
	base=
	for _ in $(seq 600); do
		base=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$dir/out" 2>/dev/null)
		[ -n "$base" ] && return 0
		sleep 0.2
	done
	return 1
}
# the requests of each kind, from a fixed seed: cursors read from the daemon itself
paths() {
	python3 - "$base" "$dir" "$rigs" <<'PY'
import json, random, sys, urllib.parse, urllib.request
base, out = sys.argv[1], sys.argv[2]
rng = random.Random(5)
def get(path):
    with urllib.request.urlopen(base + path) as r:
        return json.load(r)
first = get("/api/resources?limit=500")["resources"]
names = [e["name"] for e in first if e["name"]]
kinds = {"first page": ["/api/resources"], "class filter": ["/api/resources?class=RadientAnimationClip"],
         "classes": ["/api/classes"], "health": ["/api/health"]}
kinds["handle lookup"] = ["/api/resources?crc32=%d" % e["crc32_decimal"] for e in first[:200]]
deep = []
for sort in ["id", "name", "duration", "size", "crc32", "uploaded_at"]:
    for order in ["asc", "desc"]:
        page = get("/api/resources?sort=%s&order=%s&limit=500" % (sort, order))
        for _ in range(rng.randint(1, 8)):
            if not page.get("next_cursor"): break
            c = page["next_cursor"]
            deep.append("/api/resources?sort=%s&order=%s&cursor=%s" % (sort, order, urllib.parse.quote(c)))
            page = get("/api/resources?sort=%s&order=%s&limit=500&cursor=%s" % (sort, order, urllib.parse.quote(c)))
kinds["page at a depth, by cursor"] = deep
kinds["every sort, both orders"] = ["/api/resources?sort=%s&order=%s" % (s, o) for s in
    ["class", "name", "family", "crc32", "track_count", "duration", "size", "uploaded_at"] for o in ["asc", "desc"]]
subs = []
for _ in range(300):
    n = rng.choice(names); k = rng.randint(3, 10); at = rng.randint(0, max(0, len(n) - k))
    subs.append("/api/resources?q=" + urllib.parse.quote(n[at:at + k]))
kinds["search, 3-10 characters of names"] = subs
kinds["search with no match"] = ["/api/resources?q=" + "".join(rng.choice("qzxj") for _ in range(6)) + "Q%d" % i for i in range(300)]
rigs = []
for k in range(1000):
    page = get("/api/resources?filename=rigs_%03d.gltf&limit=500" % k)["resources"]
    if not page: break
    rigs += [e["id"] for e in page]
if rigs:
    rigs_in = "among %d rigs" % int(sys.argv[3])
    kinds["rigs: skeletons ranking " + rigs_in] = ["/api/resources/%d/skeletons" % rng.choice(rigs) for _ in range(300)]
    kinds["rigs: bonemap between two " + rigs_in] = ["/api/bonemap?from=%d&to=%d" % (rng.choice(rigs), rng.choice(rigs)) for _ in range(300)]
for i, (kind, ps) in enumerate(kinds.items()):
    open("%s/paths.%02d" % (out, i), "w").write("\n".join(ps) + "\n")
    open("%s/kind.%02d" % (out, i), "w").write(kind)
PY
}
measured() { # row target threads connections paths: wrk's p99 and its line, as a row
	local line
	line=$(wrk -t "$3" -c "$4" -d "${seconds}s" --timeout 10s -s "$src/tests/bench/scale.lua" "$base" "$5" 2>&1 | grep '^scale:')
	row "$1" "$(echo "$line" | sed -n 's/.*p99 \([0-9.]*\) ms.*/\1/p')" "ms p99 ($2); ${line#scale: }"
}
measure() { # label
	local kind
	paths || return 1
	for p in "$dir"/paths.*; do
		kind=$(cat "$dir/kind.${p##*.}")
		if [ "${kind#rigs: }" != "$kind" ]; then # one connection, then 32
			measured "$1: ${kind#rigs: }, one connection" "target <= 50" 1 1 "$p"
			measured "$1: ${kind#rigs: }, 32 connections" "the issue's 50 is for one answer" 2 32 "$p"
		else
			measured "$1: $kind" "target <= 20" 2 32 "$p"
		fi
	done
	row "$1: daemon's peak memory" "$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$daemon/status")" "MiB (target <= 128)"
	kill "$daemon"
	wait "$daemon" 2>/dev/null
	daemon=
}
echo "animdex at $entries entries, $seconds s a measure, 32 connections"
import_all "$dir/s.db" "SQLite"
file_sizes
start "$dir/s.db" && measure "SQLite"
if [ -z "$pgbin" ]; then
	row "PostgreSQL" "-" "could not run (Debian's postgresql is needed)"
	exit 0
fi
pgdir=$(mktemp -d /tmp/animdex-bench-pg-XXXXXX)
if [ "$(id -u)" = 0 ]; then
	chown postgres "$pgdir"
	runas=(runuser -u postgres --)
fi
"${runas[@]}" "$pgbin/initdb" -D "$pgdir/data" -U animdex -A trust -E UTF8 --locale=C -N >/dev/null 2>&1 &&
	"${runas[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w \
		-o "-k $pgdir -c listen_addresses='' -c max_connections=200" start >/dev/null 2>&1 &&
	"$pgbin/psql" -q -h "$pgdir" -U animdex -d postgres -c "CREATE DATABASE scale" || exit 1
pg="host=$pgdir user=animdex dbname=scale"
import_all "$pg" "PostgreSQL"
start "$pg" && measure "PostgreSQL"
