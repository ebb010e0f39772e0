#!/bin/bash
# run.sh: animdex against its targets (README, "Performance") and against the limits of its parts,
# measured side by side in one run; each figure the median of several repetitions. Prints a
# table. Needs the built tree (make), wrk and curl. BENCH_SECONDS sets each wrk run (5).
set -u
top=${ANIMDEX_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${ANIMDEX_BUILDDIR:-$(pwd)}
seconds=${BENCH_SECONDS:-5}
threads=$(nproc)
dir=$(mktemp -d /tmp/animdex-bench-XXXXXX)
bin="$build/animdexd"
rows=()
row() {
	rows+=("$(printf '%-58s %14s  %s' "$1" "$2" "$3")")
	raw+=("$(printf '%s\t%s\t%s' "$1" "$2" "$3")")
}
raw=()
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
cc_flags="-O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I$top/include"

echo "building the benchmarks..." >&2
# shellcheck disable=SC2086
gcc $cc_flags -o "$dir/bench_curve" "$top/tests/bench/bench_curve.c" "$build/libanimdex.a" \
	$(pkg-config --libs jansson) -lm || exit 1
# shellcheck disable=SC2086
gcc $cc_flags -o "$dir/minimal_server" "$top/tests/bench/minimal_server.c" \
	$(pkg-config --cflags --libs libmicrohttpd) || exit 1
# shellcheck disable=SC2086
gcc $cc_flags -I"$top/tests/lib" -o "$dir/keyframer" "$top/tests/bench/keyframer.c" \
	"$top/tests/lib/zouna_writer.c" "$build/libanimdex.a" $(pkg-config --libs jansson) -lz -lm || exit 1

echo "sampling core..." >&2
"$dir/bench_curve" >"$dir/curve.tsv"
while IFS=$'\t' read -r name value unit; do row "$name" "$value" "$unit"; done <"$dir/curve.tsv"

echo "reduction by object-space error on Debian's CMU clips, gltfpack beside it..." >&2
# shellcheck disable=SC2086
gcc $cc_flags -o "$dir/bench_reduce" "$top/tests/bench/bench_reduce.c" "$build/libanimdex.a" \
	$(pkg-config --libs jansson) -lz -lm || exit 1
cmu=/usr/share/assimp/models/BVH
if [ -f "$cmu/01_01.bvh" ] && command -v assimp >/dev/null; then
	if [ ! -d "$top/tests/bench/node_modules/gltfpack" ]; then
		(cd "$top/tests/bench" && npm ci --no-audit --no-fund --loglevel=error) >&2
	fi
	clips=""
	for clip in 01_01 01_03 Boxing_Toes; do # glTF as Debian's assimp converts them
		assimp export "$cmu/$clip.bvh" "$dir/$clip.glb" -fglb2 >/dev/null || exit 1
		clips="$clips $dir/$clip.glb"
	done
	# shellcheck disable=SC2086
	REDUCE_AT=0.01,0.05 "$dir/bench_reduce" $clips >"$dir/reduce.tsv" || exit 1
	for clip in 01_01 01_03 Boxing_Toes; do # gltfpack 0.18 with its defaults
		if node "$top/tests/bench/node_modules/gltfpack/cli.js" -i "$dir/$clip.glb" \
			-o "$dir/$clip.gltfpack.glb" >/dev/null; then
			"$dir/bench_reduce" --against "$dir/$clip.glb" "$dir/$clip.gltfpack.glb" >>"$dir/reduce.tsv"
		else
			printf '%s\t-\t%s\n' "$clip.gltfpack.glb" "gltfpack could not run (npm ci in tests/bench)" >>"$dir/reduce.tsv"
		fi
	done
	while IFS=$'\t' read -r name value unit; do row "$name" "$value" "$unit"; done <"$dir/reduce.tsv"
else
	row "reduction on CMU clips" "-" "skipped: $cmu/01_01.bvh or assimp is missing (apt-get install assimp-utils assimp-testmodels)"
fi

echo "three.js, the same sweeps..." >&2
if [ ! -d "$top/tests/bench/node_modules/three" ]; then
	(cd "$top/tests/bench" && npm ci --no-audit --no-fund --loglevel=error) >&2
fi
if node "$top/tests/bench/three.mjs" >"$dir/three.tsv"; then
	while IFS=$'\t' read -r name value unit; do row "$name" "$value" "$unit"; done <"$dir/three.tsv"
	figure() { awk -F'\t' -v n="$2" '$1 == n {print $2}' "$1"; }
	ratios() { # animdex's figures, three.js's: a ratio a line, linear then slerp
		for what in "FLOAT3 linear" "quaternion slerp 0.3 rad apart"; do
			a=$(figure "$1" "sweep $what 1000 keys (animdex)")
			t=$(figure "$2" "sweep $what 1000 keys (three.js)")
			awk -v a="$a" -v t="$t" -v w="$what" 'BEGIN {printf "%s\t%.4f\n", w, a / t}'
		done
	}
	# the first pair, and four more alternated (the machine's speed moves between runs):
	# each pair's own ratio, the median of the five
	ratios "$dir/curve.tsv" "$dir/three.tsv" >"$dir/three.ratios"
	for rep in 1 2 3 4; do
		"$dir/bench_curve" --three-js-curves >"$dir/curve.again.tsv"
		node "$top/tests/bench/three.mjs" >"$dir/three.again.tsv" || break
		ratios "$dir/curve.again.tsv" "$dir/three.again.tsv" >>"$dir/three.ratios"
	done
	for what in "FLOAT3 linear" "quaternion slerp 0.3 rad apart"; do
		row "  animdex / three.js, $what (median of 5 pairs)" "$(awk -F'\t' -v w="$what" '$1 == w {print $2}' "$dir/three.ratios" | median)" "x (issue target: linear >= 5, slerp >= 4)"
	done
else
	row "three.js sweeps" "-" "could not run (node and npm are needed)"
fi

start_daemon() { # db extra...
	local db=$1
	shift
	"$bin" --listen 127.0.0.1:0 --db "$db" --quiet --threads "$threads" \
		--max-connections-per-ip 512 --max-connections 1024 --max-event-streams 256 "$@" \
		>"$dir/daemon.out" &
	daemon=$!
	for _ in $(seq 50); do grep -q listening "$dir/daemon.out" && break; sleep 0.1; done
	base=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$dir/daemon.out")
}
peak_rss() { awk '/VmHWM/ {print $2 / 1024}' "/proc/$1/status"; }

# a track to sample: 1,000 cubic FLOAT3 keys
python3 - "$dir/track.json" <<'PY'
import json, math, sys
n = 1000
times = [i * 0.01 for i in range(n)]
values = []
for i in range(n):
    for part in range(3):
        values += [math.sin(i * 3 + part + c) for c in range(3)]
json.dump({"name": "bench", "duration": times[-1], "targets": [{"schema": "E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3", "object": 0}],
           "samplers": [{"value": {"type": "FLOAT3"}, "interpolation": "CUBIC_SPLINE", "times": times, "values": values}],
           "channels": [{"target": 0, "property": 1, "sampler": 0}]}, open(sys.argv[1], "w"))
PY
start_daemon "$dir/read.db"
curl -s -o /dev/null --data-binary @"$dir/track.json" "$base/api/resources?filename=track.json"
sample="$base/api/resources/1/tracks/0/sample"

echo "bulk output..." >&2
for f in json csv f32; do
	curl -s -o "$dir/body.$f" "$sample?from=0&to=9.99&count=100000&format=$f"
done
"$dir/minimal_server" "$threads" "$dir/body.json" "$dir/body.csv" "$dir/body.f32" \
	>"$dir/minimal.port" 2>/dev/null &
minimal=$!
sleep 0.3
mport=$(head -n 1 "$dir/minimal.port")
[ -n "$mport" ] || { echo "the minimal server did not start" >&2; exit 1; }
# alternated in pairs, the ratio taken pair by pair (the machine's speed moves within a run)
i=0
for f in json csv f32; do
	for _ in 1 2 3 4 5 6 7 8 9; do
		a=$(curl -s -o /dev/null -w '%{time_total}' "$sample?from=0&to=9.99&count=100000&format=$f")
		m=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$mport/$i")
		echo "$a $m"
	done >"$dir/bulk.$f"
	t=$(awk '{print $1}' "$dir/bulk.$f" | median)
	eval "time_$f=$t"
	row "sample count=100000 format=$f over HTTP" "$(awk -v t="$t" 'BEGIN {printf "%.1f", 300000 / t / 1e6}')" "million values/s ($(stat -c %s "$dir/body.$f") bytes)"
	row "  the same bytes from memory (minimal server) / $f" "$(awk '{printf "%.4f\n", $2 / $1}' "$dir/bulk.$f" | median)" "x (median of 9 alternated pairs; 1 = as fast as memory; target >= $([ $f = f32 ] && echo 0.9 || echo 0.5))"
	i=$((i + 1))
done
row "f32 speed / JSON speed" "$(awk -v a="$time_json" -v b="$time_f32" 'BEGIN {printf "%.1f", a / b}')" "x (target >= 10)"
kill "$minimal"
wait "$minimal" 2>/dev/null

echo "small requests..." >&2
curl -s -o "$dir/small.json" "$sample?t=0.5"
"$dir/minimal_server" "$threads" "$dir/small.json" >"$dir/minimal.port" 2>/dev/null &
minimal=$!
sleep 0.3
mport=$(head -n 1 "$dir/minimal.port")
# alternated in pairs, the ratio taken pair by pair: the machine's speed moves between runs
for rep in 1 2 3 4 5; do
	wrk -t 2 -c 32 -d "${seconds}s" --latency "$sample?t=0.5" >"$dir/wrk.a.$rep"
	wrk -t 2 -c 32 -d "${seconds}s" --latency "http://127.0.0.1:$mport/0" >"$dir/wrk.m.$rep"
	awk '/Requests\/sec/ {print $2}' "$dir/wrk.a.$rep" "$dir/wrk.m.$rep" | paste -s -d ' ' |
		awk '{printf "%.4f\n", $1 / $2}' >>"$dir/pair.ratios"
done
rps() { awk '/Requests\/sec/ {print $2}' "$@" | median; }
p99() { awk '$1 == "99%" {v = $2; if (v ~ /us$/) {sub(/us/, "", v); v = v / 1000} else if (v ~ /ms$/) {sub(/ms/, "", v)} else if (v ~ /s$/) {sub(/s/, "", v); v = v * 1000}; print v}' "$@" | median; }
a_rps=$(rps "$dir"/wrk.a.*)
m_rps=$(rps "$dir"/wrk.m.*)
row "GET sample?t=0.5, 32 connections (animdex)" "$a_rps" "requests/s, p99 $(p99 "$dir"/wrk.a.*) ms"
row "GET constant, 32 connections (minimal libmicrohttpd)" "$m_rps" "requests/s, p99 $(p99 "$dir"/wrk.m.*) ms"
row "animdex / minimal server (median of 5 pairs)" "$(median <"$dir/pair.ratios")" "x (target >= 0.95)"
row "peak RSS of animdexd after the read runs" "$(peak_rss "$daemon")" "MiB (target <= 32)"

# 200 open GET /api/events streams against 200 idle keep-alive connections (each has had one
# answer): how much does either slow sampling? Alternated in pairs, the ratio pair by pair.
echo "event streams..." >&2
hold() { # KIND: opens 200 connections of that kind, prints "ready", holds them until killed
	python3 - "${base##*:}" 200 "$1" <<'PY' &
import signal, socket, sys
port, n, kind = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
path = "/api/events" if kind == "events" else "/api/health"
held = []
for _ in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
    if not s.recv(65536).startswith(b"HTTP/1.1 200"):
        sys.exit(f"{kind}: not answered 200")
    held.append(s)
print("ready", flush=True)
signal.pause()
PY
	holder=$!
}
: >"$dir/streams.ratios"
for rep in 1 2 3 4 5; do
	for kind in events idle; do
		hold "$kind" >"$dir/hold.$kind"
		for _ in $(seq 100); do grep -q ready "$dir/hold.$kind" && break; sleep 0.1; done
		wrk -t 2 -c 32 -d "${seconds}s" "$sample?t=0.5" >"$dir/wrk.$kind.$rep"
		kill "$holder"
		wait "$holder" 2>/dev/null
	done
	awk '/Requests\/sec/ {print $2}' "$dir/wrk.events.$rep" "$dir/wrk.idle.$rep" | paste -s -d ' ' |
		awk '{printf "%.4f\n", $1 / $2}' >>"$dir/streams.ratios"
done
row "GET sample?t=0.5 beside 200 open event streams" "$(rps "$dir"/wrk.events.*)" "requests/s"
row "GET sample?t=0.5 beside 200 idle keep-alive connections" "$(rps "$dir"/wrk.idle.*)" "requests/s"
row "  with streams / with idle connections (median of 5 pairs)" "$(median <"$dir/streams.ratios")" "x (target >= 0.95: streams cost no more than idle connections)"
kill "$minimal" "$daemon"
wait "$minimal" "$daemon" 2>/dev/null

echo "uploads..." >&2
mkdir -p "$dir/files"
python3 - "$dir/files" <<'PY'
import struct, sys
for i in range(10000):
    keys = [(0.0, i * 0.001, 0.0, 0.0), (1.0, 1.0, 0.0, 0.0), (2.0, float(i), 0.0, 0.0)]
    body = struct.pack('<HI', 1, len(keys)) + b''.join(struct.pack('<4f', *k) for k in keys)
    open('%s/k%05d.KeyframerFloat_Z' % (sys.argv[1], i), 'wb').write(body)
PY
# each import followed by an export of what it stored (the 10,000 entries as one asset, from
# the command line), the ratio taken pair by pair: the machine's speed moves between runs
rates=""
exports=""
: >"$dir/export.ratios"
for rep in 1 2 3 4 5; do
	rm -f "$dir/import.db"*
	line=$("$bin" import --db "$dir/import.db" --quiet "$dir/files" 2>&1 | tail -n 1)
	i_rate=$(echo "$line" | sed -n 's/.*(\([0-9]*\) files\/s).*/\1/p')
	t0=$(date +%s.%N)
	"$bin" export --db "$dir/import.db" --max-entries 10000 --quiet -o "$dir/bulk.glb" || break
	t1=$(date +%s.%N)
	e_rate=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f", 10000 / (b - a)}')
	rates="$rates $i_rate"
	exports="$exports $e_rate"
	awk -v e="$e_rate" -v i="$i_rate" 'BEGIN {printf "%.4f\n", e / i}' >>"$dir/export.ratios"
done
import_rate=$(echo "$rates" | tr ' ' '\n' | grep . | median)
export_rate=$(echo "$exports" | tr ' ' '\n' | grep . | median)
row "animdexd import of 10,000 small keyframer files" "$import_rate" "entries/s (target >= 25,000)"
echo "export..." >&2
row "animdexd export of those 10,000 entries as one .glb" "$export_rate" "entries/s ($(stat -c %s "$dir/bulk.glb" 2>/dev/null) bytes)"
row "  export speed / import speed (median of 5 pairs)" "$(median <"$dir/export.ratios")" "x (target >= 1)"
# one large entry: 100 node tracks of 1,000 LINEAR keys
python3 - "$dir/large.json" <<'PY'
import json, math, sys
n, tracks = 1000, 100
times = [i * 0.01 for i in range(n)]
doc = {"name": "large", "duration": times[-1], "targets": [], "samplers": [], "channels": []}
for t in range(tracks):
    doc["targets"].append({"schema": "E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3", "object": t, "name": "n%d" % t})
    doc["samplers"].append({"value": {"type": "FLOAT3"}, "interpolation": "LINEAR", "times": times,
                            "values": [math.sin(i * 0.01 + t + c) for i in range(n) for c in range(3)]})
    doc["channels"].append({"target": t, "property": 1, "sampler": t})
json.dump(doc, open(sys.argv[1], "w"))
PY
start_daemon "$dir/export.db"
curl -s -o /dev/null --data-binary @"$dir/large.json" "$base/api/resources?filename=large.json"
curl -s -o "$dir/large.glb" "$base/api/resources/1/export"
t=$(for _ in 1 2 3 4 5; do curl -s -o /dev/null -w '%{time_total}\n' "$base/api/resources/1/export"; done | median)
row "GET export of 100 tracks of 1,000 keys (.glb over HTTP)" "$(awk -v t="$t" -v b="$(stat -c %s "$dir/large.glb")" 'BEGIN {printf "%.1f", b / t / 1048576}')" "MiB/s of output ($(stat -c %s "$dir/large.glb") bytes in $t s)"
# a skeleton of 100 nodes named as large's targets (a chain), and large posed and exported on it
python3 - "$dir/chain.gltf" <<'PY'
import json, sys
nodes = [{"name": "n%d" % i, "translation": [0, 0.1, 0]} for i in range(100)]
for i in range(99):
    nodes[i]["children"] = [i + 1]
json.dump({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": nodes},
          open(sys.argv[1], "w"))
PY
curl -s -o /dev/null -F file=@"$dir/chain.gltf" "$base/api/resources"
pose="$base/api/resources/1/pose?skeleton=2&from=0&to=9.99&count=1000"
for f in json f32; do
	curl -s -o "$dir/pose.$f" "$pose&format=$f"
	for rep in 1 2 3 4 5; do
		p=$(curl -s -o /dev/null -w '%{time_total}' "$pose&format=$f")
		# the 100 tracks' samples in one curl (one connection, kept alive): the sum of the
		# requests' times
		s=$(for n in $(seq 0 99); do printf -- '-o /dev/null %s ' "$base/api/resources/1/tracks/$n/sample?from=0&to=9.99&count=1000&format=$f"; done |
			xargs curl -s -w '%{time_total}\n' | awk '{t += $1} END {print t}')
		echo "$p $s"
	done >"$dir/pose.pairs.$f"
	row "pose 100 nodes x 1,000 times format=$f" "$(awk '{print $1}' "$dir/pose.pairs.$f" | median)" "s ($(stat -c %s "$dir/pose.$f") bytes: local TRS and world matrix a node)"
	row "  sampling the same 100 tracks (100 requests) / the pose" "$(awk '{printf "%.2f\n", $2 / $1}' "$dir/pose.pairs.$f" | median)" "x (median of 5 pairs; the pose also makes 100 world matrices a time, 26 floats a node to 3)"
done
curl -s -o "$dir/rig.glb" "$base/api/resources/1/export?skeleton=2"
for rep in 1 2 3 4 5; do
	a=$(curl -s -o /dev/null -w '%{time_total}' "$base/api/resources/1/export")
	b=$(curl -s -o /dev/null -w '%{time_total}' "$base/api/resources/1/export?skeleton=2")
	echo "$a $b"
done >"$dir/rig.pairs"
row "GET export of the same onto a 100-node rig (skeleton=)" "$(awk -v t="$(awk '{print $2}' "$dir/rig.pairs" | median)" -v b="$(stat -c %s "$dir/rig.glb")" 'BEGIN {printf "%.1f", b / t / 1048576}')" "MiB/s of output ($(stat -c %s "$dir/rig.glb") bytes)"
row "  rig export speed / export speed" "$(awk '{printf "%.2f\n", $1 / $2}' "$dir/rig.pairs" | median)" "x (median of 5 pairs; target: about 1)"
kill "$daemon"
wait "$daemon" 2>/dev/null
# the memory of exporting one large upload: 32 and 64 MB Radient clips (node tracks, so the
# asset is mostly buffer), each export on a daemon started for it, its peak RSS
for mb in 32 64; do
	python3 - "$dir/huge.json" "$mb" <<'PY'
import json, math, sys
target, tracks = int(sys.argv[2]) * 1000000, 50
n = target // (tracks * 36)  # about 36 bytes of JSON a key (a time and three values)
times = [round(i * 0.01, 2) for i in range(n)]
doc = {"name": "huge", "duration": round(n * 0.01, 2), "targets": [], "samplers": [], "channels": []}
for t in range(tracks):
    doc["targets"].append({"schema": "E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3", "object": t, "name": "n%d" % t})
    doc["samplers"].append({"value": {"type": "FLOAT3"}, "interpolation": "LINEAR", "times": times,
                            "values": [round(math.sin(i * 0.01 + t + c), 5) for i in range(n) for c in range(3)]})
    doc["channels"].append({"target": t, "property": 1, "sampler": t})
json.dump(doc, open(sys.argv[1], "w"))
PY
	rm -f "$dir/huge.db"*
	start_daemon "$dir/huge.db" --max-upload 128M
	curl -s -o /dev/null --data-binary @"$dir/huge.json" "$base/api/resources?filename=huge.json"
	kill "$daemon"
	wait "$daemon" 2>/dev/null
	start_daemon "$dir/huge.db"
	size=$(curl -s -o /dev/null -w '%{size_download}' "$base/api/resources/1/export")
	row "peak RSS of animdexd exporting a $(($(stat -c %s "$dir/huge.json") / 1000000)) MB upload" "$(peak_rss "$daemon")" "MiB (a $((size / 1048576)) MiB .glb; the daemon at rest: 9)"
	kill "$daemon"
	wait "$daemon" 2>/dev/null
done
# the memory of exporting a track glTF cannot animate: a bare keyframer of 4 million keys (a
# 32 MB upload), its keys kept in the asset's buffer, not as a JSON tree (issue target: an
# export at most the upload's size plus 16 MiB, planned in a few MiB)
"$dir/keyframer" 4000000 >"$dir/kept.KeyframerFloatLinearComp_Z"
rm -f "$dir/kept.db"*
start_daemon "$dir/kept.db" --max-upload 64M
curl -s -o /dev/null --data-binary @"$dir/kept.KeyframerFloatLinearComp_Z" \
	"$base/api/resources?filename=kept.KeyframerFloatLinearComp_Z"
kill "$daemon"
wait "$daemon" 2>/dev/null
for what in "export?summary=1" export; do
	start_daemon "$dir/kept.db"
	rest=$(peak_rss "$daemon")
	curl -s -o /dev/null "$base/api/resources/1/$what"
	row "peak RSS growth of animdexd, GET $what of a 32 MB bare keyframer" \
		"$(awk -v p="$(peak_rss "$daemon")" -v r="$rest" 'BEGIN {printf "%.1f", p - r}')" \
		"MiB (its track kept in extras; target: export <= upload + 16 MiB, plan a few MiB)"
	kill "$daemon"
	wait "$daemon" 2>/dev/null
done

# back into the game: native of a 100,000-key Animation_Z (10 bones, a rotation and a
# translation of 5,000 keys each) beside export of the same entry, and that export uploaded
# again and written back onto it (each track compared with what export writes, then copied)
"$dir/keyframer" 100000 animation >"$dir/bench.Animation_Z"
rm -f "$dir/native.db"*
start_daemon "$dir/native.db"
curl -s -o /dev/null --data-binary @"$dir/bench.Animation_Z" "$base/api/resources?filename=bench.Animation_Z"
curl -s -o "$dir/bench.glb" "$base/api/resources/1/export"
curl -s -o /dev/null --data-binary @"$dir/bench.glb" "$base/api/resources?filename=bench.glb"
curl -s -o "$dir/back.Animation_Z" "$base/api/resources/2/native?template=1"
: >"$dir/native.times"
for _ in 1 2 3 4 5; do
	e=$(curl -s -o /dev/null -w '%{time_total}' "$base/api/resources/1/export")
	n=$(curl -s -o /dev/null -w '%{time_total}' "$base/api/resources/1/native")
	g=$(curl -s -o /dev/null -w '%{time_total}' "$base/api/resources/2/native?template=1")
	echo "$e $n $g" >>"$dir/native.times"
done
kill "$daemon"
wait "$daemon" 2>/dev/null
same=$(cmp -s "$dir/back.Animation_Z" "$dir/bench.Animation_Z" && echo "the file byte for byte" || echo "NOT the file")
row "GET export of a 100,000-key Animation_Z (.glb)" "$(awk '{print $1}' "$dir/native.times" | median)" "s ($(stat -c %s "$dir/bench.glb") bytes)"
row "GET native of that Animation_Z (the entry itself)" "$(awk '{print $2}' "$dir/native.times" | median)" "s ($(stat -c %s "$dir/bench.Animation_Z") bytes)"
row "GET native?template= of its .glb uploaded again" "$(awk '{print $3}' "$dir/native.times" | median)" "s ($same)"
row "  native / export (median of 5 pairs)" "$(awk '{printf "%.2f\n", $2 / $1}' "$dir/native.times" | median)" "x (native decodes the entry and the template, and its own file again before it answers; export reads stored rows)"
row "  native of the .glb / export (median of 5 pairs)" "$(awk '{printf "%.2f\n", $3 / $1}' "$dir/native.times" | median)" "x"

# Animation_Z node records, 10,000 and 40,000 bones of a key each: upload and native must grow
# with the records, not their square (issue 44 item 9: linear time; memory a small multiple of
# the upload), each the median of 3
for records in 10000 40000; do
	rm -f "$dir/records.db"*
	start_daemon "$dir/records.db" --answer-memory 2G # native of 40,000 records asks ~330 MB
	rest=$(peak_rss "$daemon")
	: >"$dir/records.times"
	for rep in 1 2 3; do
		"$dir/keyframer" "$records" records "$rep" >"$dir/records$records.Animation_Z"
		u=$(curl -s -o /dev/null -w '%{time_total}' --data-binary @"$dir/records$records.Animation_Z" \
			"$base/api/resources?filename=records$rep.Animation_Z")
		n=$(curl -s -o /dev/null -w '%{time_total}' "$base/api/resources/1/native")
		echo "$u $n" >>"$dir/records.times"
	done
	grown=$(awk -v p="$(peak_rss "$daemon")" -v r="$rest" 'BEGIN {printf "%.1f", p - r}')
	kill "$daemon"
	wait "$daemon" 2>/dev/null
	upload_mib=$(awk -v b="$(stat -c %s "$dir/records$records.Animation_Z")" 'BEGIN {printf "%.2f", b / 1048576}')
	eval "upload_s_$records=$(awk '{print $1}' "$dir/records.times" | median)"
	eval "native_s_$records=$(awk '{print $2}' "$dir/records.times" | median)"
	row "POST of $records node records (Animation_Z, $upload_mib MiB)" "$(eval echo "\$upload_s_$records")" "s"
	row "GET native of those $records records" "$(eval echo "\$native_s_$records")" "s"
	row "  peak RSS growth / upload size, $records records" "$(awk -v g="$grown" -v u="$upload_mib" 'BEGIN {printf "%.0f", g / u}')" "x (its tracks and their rows: a few KiB a record)"
done
# shellcheck disable=SC2154 # set by the eval above
row "  POST 40,000 / 10,000 records" "$(awk -v a="$upload_s_40000" -v b="$upload_s_10000" 'BEGIN {printf "%.2f", a / b}')" "x (linear: 4; it was 10 and more)"
# shellcheck disable=SC2154
row "  GET native 40,000 / 10,000 records" "$(awk -v a="$native_s_40000" -v b="$native_s_10000" 'BEGIN {printf "%.2f", a / b}')" "x (linear: 4; it was 11)"

# raw downloads of a 10 and a 40 MiB upload (a Radient clip padded with spaces): each block is
# one stored chunk, so the time grows with the size, not its square (issue target: 40 MiB at
# most 5x 10 MiB)
rm -f "$dir/raw.db"*
start_daemon "$dir/raw.db" --max-upload 64M
for mib in 10 40; do
	python3 - "$dir/raw$mib.json" "$mib" <<'PY'
import sys
size = int(sys.argv[2]) << 20
head = b'{"name": "raw%s", "duration": 1' % sys.argv[2].encode()
open(sys.argv[1], "wb").write(head + b" " * (size - len(head) - 1) + b"}")
PY
	curl -s -o /dev/null --data-binary @"$dir/raw$mib.json" "$base/api/resources?filename=raw$mib.json"
done
for rep in 1 2 3 4 5; do
	a=$(curl -s -o /dev/null -w '%{time_total}' "$base/api/resources/1/raw")
	b=$(curl -s -o /dev/null -w '%{time_total}' "$base/api/resources/2/raw")
	echo "$a $b"
done >"$dir/raw.pairs"
row "GET raw of a 10 MiB upload" "$(awk '{print $1}' "$dir/raw.pairs" | median)" "s"
row "GET raw of a 40 MiB upload" "$(awk '{print $2}' "$dir/raw.pairs" | median)" "s"
row "  40 MiB / 10 MiB (median of 5 pairs)" "$(awk '{printf "%.2f\n", $2 / $1}' "$dir/raw.pairs" | median)" "x (target <= 5; 4 is linear)"
kill "$daemon"
wait "$daemon" 2>/dev/null
start_daemon "$dir/upload.db"
for rep in 1 2 3; do
	# new bytes in every run: a run that sent the last one's again would time duplicates
	wrk -t 2 -c 8 -d "${seconds}s" -s "$top/tests/bench/upload.lua" "$base" -- "s$rep-" >"$dir/wrk.upload.$rep"
done
ups=$(awk '/Requests\/sec/ {print $2}' "$dir"/wrk.upload.* | median)
notstored=$(cat "$dir"/wrk.upload.* | sed -n 's/.* \([0-9]*\) not stored/\1/p' | awk '{s += $1} END {print s}')
row "HTTP uploads, 8 concurrent clients" "$ups" "entries/s, ${notstored:-?} not stored (SQLITE_BUSY or other; target >= 6,000, none)"
row "peak RSS of animdexd after the upload run" "$(peak_rss "$daemon")" "MiB (target <= 32)"
kill "$daemon"
wait "$daemon" 2>/dev/null

echo "retargeting (issue 45's targets)..." >&2
if sh "$top/tests/lib/npm-tool.sh" "$top/tests/pose" three >&2 &&
	ANIMDEXD="$bin" node "$top/tests/pose/retarget.test.mjs" --bench >"$dir/retarget.tsv"; then
	while IFS=$'\t' read -r name value unit; do
		case $name in SKIP:*) row "retarget" "-" "${name#SKIP: }" ;; *) row "$name" "$value" "$unit" ;; esac
	done <"$dir/retarget.tsv"
else
	row "retarget" "-" "could not run (node, npm and Debian's assimp-testmodels are needed)"
fi

echo "the page in Chromium (issue 38's targets)..." >&2
if [ -x /usr/bin/chromium ] && sh "$top/tests/lib/npm-tool.sh" "$top/tests/browser" playwright-core >&2 &&
	ANIMDEXD="$bin" ANIMDEX_SRCDIR="$top" node "$top/tests/bench/page.mjs" >"$dir/page.tsv"; then
	while IFS=$'\t' read -r name value unit; do row "$name" "$value" "$unit"; done <"$dir/page.tsv"
else
	row "page" "-" "could not run (Debian's chromium and playwright-core are needed)"
fi

echo "PostgreSQL..." >&2
# a throwaway cluster of the bench's own (as the postgres user when run as root, since
# PostgreSQL refuses root), reached through a socket in its folder
pgdir=$(mktemp -d /tmp/animdex-pg-XXXXXX)
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
runas=()
if [ "$(id -u)" = 0 ]; then
	chown postgres "$pgdir"
	runas=(runuser -u postgres --)
fi
pg_stop() { "${runas[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -m immediate -w stop >/dev/null 2>&1; rm -rf "$pgdir"; }
trap pg_stop EXIT
if [ -n "$pgbin" ] &&
	"${runas[@]}" "$pgbin/initdb" -D "$pgdir/data" -U animdex -A trust -E UTF8 --locale=C -N >"$pgdir/initdb.log" 2>&1 &&
	"${runas[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w \
		-o "-k $pgdir -c listen_addresses='' -c max_connections=200" start >/dev/null 2>&1; then
	pg="host=$pgdir user=animdex"
	newdb() { "$pgbin/psql" -q -h "$pgdir" -U animdex -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" >/dev/null; }
	# import
	rates=""
	for rep in 1 2 3; do
		newdb import
		line=$("$bin" import --db "$pg dbname=import" --quiet "$dir/files" 2>&1 | tail -n 1)
		rates="$rates $(echo "$line" | sed -n 's/.*(\([0-9]*\) files\/s).*/\1/p')"
	done
	pg_import=$(echo "$rates" | tr ' ' '\n' | grep . | median)
	row "animdexd import into PostgreSQL, 10,000 small keyframer files" "$pg_import" "entries/s (target >= 5,000)"
	row "  PostgreSQL import / SQLite import" "$(awk -v p="$pg_import" -v s="$import_rate" 'BEGIN {printf "%.2f", p / s}')" "x"
	# small reads: the same track from a daemon on each, alternately
	newdb reads
	start_daemon "$dir/read.db"
	sqlite_daemon=$daemon
	sqlite_sample="$base/api/resources/1/tracks/0/sample?t=0.5"
	start_daemon "$pg dbname=reads"
	pg_daemon=$daemon
	curl -s -o /dev/null --data-binary @"$dir/track.json" "$base/api/resources?filename=track.json"
	pg_sample="$base/api/resources/1/tracks/0/sample?t=0.5"
	cmp -s <(curl -s "$sqlite_sample") <(curl -s "$pg_sample") || echo "the two daemons answer differently" >&2
	for rep in 1 2 3; do
		wrk -t 2 -c 32 -d "${seconds}s" "$sqlite_sample" >"$dir/wrk.sq.$rep"
		wrk -t 2 -c 32 -d "${seconds}s" "$pg_sample" >"$dir/wrk.pg.$rep"
	done
	sq_rps=$(rps "$dir"/wrk.sq.*)
	pg_rps=$(rps "$dir"/wrk.pg.*)
	row "GET sample?t=0.5, 32 connections, SQLite" "$sq_rps" "requests/s"
	row "GET sample?t=0.5, 32 connections, PostgreSQL" "$pg_rps" "requests/s"
	row "  PostgreSQL / SQLite" "$(awk -v p="$pg_rps" -v s="$sq_rps" 'BEGIN {printf "%.2f", p / s}')" "x (target >= 0.8)"
	kill "$sqlite_daemon" "$pg_daemon"
	wait "$sqlite_daemon" "$pg_daemon" 2>/dev/null
	# uploads: 8 clients over two daemons on one database
	newdb uploads
	start_daemon "$pg dbname=uploads"
	first=$daemon
	first_base=$base
	start_daemon "$pg dbname=uploads"
	second=$daemon
	for rep in 1 2 3; do
		wrk -t 2 -c 4 -d "${seconds}s" -s "$top/tests/bench/upload.lua" "$first_base" -- "a$rep-" >"$dir/wrk.pgup1.$rep" &
		other=$!
		wrk -t 2 -c 4 -d "${seconds}s" -s "$top/tests/bench/upload.lua" "$base" -- "b$rep-" >"$dir/wrk.pgup2.$rep"
		wait "$other"
		awk '/Requests\/sec/ {s += $2} END {print s}' "$dir/wrk.pgup1.$rep" "$dir/wrk.pgup2.$rep" >"$dir/pgup.$rep"
	done
	pg_ups=$(cat "$dir"/pgup.* | median)
	pg_notstored=$(cat "$dir"/wrk.pgup* | sed -n 's/.* \([0-9]*\) not stored/\1/p' | awk '{s += $1} END {print s}')
	row "HTTP uploads, 8 clients over two daemons on PostgreSQL" "$pg_ups" "entries/s, ${pg_notstored:-?} not stored"
	row "  the same, 8 clients, one daemon on SQLite (above)" "$ups" "entries/s, ${notstored:-?} not stored"
	kill "$first" "$second"
	wait "$first" "$second" 2>/dev/null
else
	row "PostgreSQL" "-" "could not start a cluster (Debian's postgresql is needed)"
fi

echo
echo "animdex benchmarks ($(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ); medians of repeated runs)"
printf '%s\n' "${rows[@]}"
# the same figures as JSON, so that two runs can be compared
{
	printf '{"when": "%s", "cores": %s, "figures": [' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(nproc)"
	sep=""
	for r in "${raw[@]}"; do
		IFS=$'\t' read -r name value unit <<<"$r"
		printf '%s\n  {"measure": "%s", "value": "%s", "unit": "%s"}' "$sep" \
			"$(printf '%s' "$name" | sed 's/"/\\"/g')" "$value" "$(printf '%s' "$unit" | sed 's/"/\\"/g')"
		sep=","
	done
	printf '\n]}\n'
} >"$build/bench.json"
echo "figures written to $build/bench.json"
rm -rf "$dir"
