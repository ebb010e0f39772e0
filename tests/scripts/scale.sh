#!/bin/bash
# scale.sh: a catalogue of SCALE_ENTRIES entries (default 100,000: glTF files of 1,000 clips
# made by tests/scale/generate.py) on SQLite and on a throwaway PostgreSQL cluster, each checked
# by tests/scale/check.py (every order paged to its end by cursor, pages at random depths,
# totals, filters, SCALE_QUERIES random searches against LIKE, default 1,000) against the
# entries read from the database itself and sorted in memory. Then, on SQLite: the counts kept
# by triggers equal to count(*) after concurrent uploads, deletes and an import cut short by a
# crash (kill -9); and the catalogue taken back to schema 10 and upgraded in place, the upgrade
# killed half way (the catalogue still schema 10, whole) and started again. Prints
# "PASS: x" / "FAIL: x".
set -u
src=${ANIMDEX_SRCDIR:-.}
entries=${SCALE_ENTRIES:-100000}
queries=${SCALE_QUERIES:-1000}
dir=$(mktemp -d /tmp/animdex-scale-XXXXXX)
status=0
daemon=
pgdir=
check() { # name ok detail
	if [ "$2" = 0 ]; then echo "PASS: $1"; else echo "FAIL: $1 ($3)"; status=1; fi
}
cleanup() {
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	[ -n "$pgdir" ] && "${runas[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -m immediate -w stop >/dev/null 2>&1
	rm -rf "$dir" "$pgdir"
}
trap cleanup EXIT
start() { # db [log]: starts a daemon on db, its address in $base
	"$ANIMDEXD" --listen 127.0.0.1:0 --db "$1" --www "$src/www" --quiet >"$dir/out" 2>"${2:-$dir/err}" &
	daemon=$!
	base=
	for _ in $(seq 600); do
		base=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$dir/out" 2>/dev/null)
		[ -n "$base" ] && return 0
		kill -0 "$daemon" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}
stop() { kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null; daemon=; }

mkdir "$dir/files"
python3 "$src/tests/scale/generate.py" "$dir/files" $(((entries + 999) / 1000)) 1000 || exit 1
echo "scale: $entries entries in $(ls "$dir/files" | wc -l) files"

# SQLite
"$ANIMDEXD" import --db "$dir/s.db" --quiet "$dir/files" >"$dir/import.log" 2>&1
check "scale: import into SQLite" $? "$(tail -n 3 "$dir/import.log")"
cp "$dir/s.db" "$dir/old.db"
start "$dir/s.db"
python3 "$src/tests/scale/check.py" "$base" "sqlite:$dir/s.db" "$queries" >"$dir/check.log" 2>&1
check "scale: SQLite list, sorts, cursors, totals, filters and searches as the reference" $? \
	"$(grep -m 5 FAIL "$dir/check.log"; tail -n 2 "$dir/check.log")"
tail -n 1 "$dir/check.log"

# the counts after concurrent uploads, deletes and an import cut short by a crash
mkdir "$dir/more"
python3 "$src/tests/scale/generate.py" "$dir/more" 40 200 23
for w in 1 2 3; do
	(for f in "$dir"/more/pack_000${w}*.gltf; do
		curl -s -o /dev/null --data-binary @"$f" "$base/api/resources?filename=$(basename "$f")&note=upload+$w"
	done) &
done
(for id in $(seq 1 7 2000); do curl -s -o /dev/null -X DELETE "$base/api/resources/$id"; done) &
wait $(jobs -p | grep -v "^$daemon$") 2>/dev/null
"$ANIMDEXD" import --db "$dir/s.db" --quiet "$dir/more" >/dev/null 2>&1 &
importer=$!
for _ in $(seq 100); do
	[ "$(sqlite3 "$dir/s.db" "SELECT count(*) FROM resources WHERE filename LIKE 'pack_0000%'" 2>/dev/null)" -gt 0 ] 2>/dev/null && break
	sleep 0.1
done
kill -9 "$daemon" "$importer" 2>/dev/null
wait "$daemon" "$importer" 2>/dev/null
daemon=
start "$dir/s.db"
kept=$(curl -s "$base/api/health" | python3 -c 'import json,sys; c=json.load(sys.stdin)["counts"]; print(c["resources"], c["tracks"], c["blobs"], c["bytes"])')
counted=$(sqlite3 "$dir/s.db" "SELECT (SELECT count(*) FROM resources), (SELECT coalesce(sum(track_count),0) FROM resources), (SELECT count(*) FROM blobs), (SELECT coalesce(sum(size),0) FROM blobs)" | tr '|' ' ')
check "scale: the kept counts equal count(*) after concurrent writes and a crash" \
	"$([ "$kept" = "$counted" ] && echo 0 || echo 1)" "kept $kept, counted $counted"
classes=$(curl -s "$base/api/classes" | python3 -c 'import json,sys; print(" ".join("%s/%s=%d" % (c["class"], c["family"], c["count"]) for c in json.load(sys.stdin)["classes"]))')
counted=$(sqlite3 "$dir/s.db" "SELECT class || '/' || family || '=' || count(*) FROM resources GROUP BY class, family ORDER BY class, family" | tr '\n' ' ' | sed 's/ $//')
check "scale: /api/classes equal to a GROUP BY" "$([ "$classes" = "$counted" ] && echo 0 || echo 1)" \
	"listed $classes, counted $counted"
stop

# an upgrade in place of a schema 10 catalogue: 012_search_index_by_transaction.sql and
# 011_large_catalogues.sql undone
sqlite3 "$dir/old.db" "DROP TABLE resources_text_pending; DROP TRIGGER resources_counted; DROP TRIGGER resources_uncounted;
DROP TRIGGER resources_recounted; DROP TRIGGER blobs_counted; DROP TRIGGER blobs_uncounted;
DROP TRIGGER resources_text_in; DROP TRIGGER resources_text_out;
DROP TRIGGER resources_text_changed; DROP TABLE resources_text; DROP TABLE entry_counts;
DROP TABLE blob_counts; DROP INDEX resources_by_size; DROP INDEX resources_by_track_count;
DROP INDEX resources_by_duration; DROP INDEX resources_by_name_key;
DROP INDEX resources_by_filename; DROP INDEX resources_by_uploader;
ALTER TABLE resources DROP COLUMN size; PRAGMA user_version = 10;"
before=$(sqlite3 "$dir/old.db" "SELECT count(*), sum(crc32) FROM resources")
"$ANIMDEXD" --listen 127.0.0.1:0 --db "$dir/old.db" --quiet >"$dir/out" 2>"$dir/upgrade1" &
daemon=$!
for _ in $(seq 600); do grep -q "step 2 of" "$dir/upgrade1" && break; sleep 0.05; done
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
daemon=
version=$(sqlite3 "$dir/old.db" "PRAGMA user_version")
after=$(sqlite3 "$dir/old.db" "SELECT count(*), sum(crc32) FROM resources")
check "scale: an upgrade killed half way leaves schema 10 whole" \
	"$([ "$version" = 10 ] && [ "$before" = "$after" ] && grep -q "step 2 of" "$dir/upgrade1" && echo 0 || echo 1)" \
	"version $version, entries $after (were $before); $(tr '\n' ' ' <"$dir/upgrade1")"
start "$dir/old.db" "$dir/upgrade2"
steps=$(grep -c "done in" "$dir/upgrade2")
# every step of the migrations after schema 10: a file's "-- step: " lines, or one step
expected=0
for f in "$src"/schema/0*.sql; do
	n=$(basename "$f" | sed 's/_.*//; s/^0*//')
	[ "$n" -gt 10 ] || continue
	k=$(grep -c '^-- step: ' "$f")
	expected=$((expected + (k > 0 ? k : 1)))
done
check "scale: the upgrade started again runs every step, each told" \
	"$([ "$steps" = "$expected" ] && echo 0 || echo 1)" "$steps of $expected steps: $(tr '\n' ' ' <"$dir/upgrade2")"
python3 "$src/tests/scale/check.py" "$base" "sqlite:$dir/old.db" 100 5 >"$dir/check.log" 2>&1
check "scale: the upgraded catalogue answers as the reference" $? \
	"$(grep -m 5 FAIL "$dir/check.log"; tail -n 2 "$dir/check.log")"
stop

# PostgreSQL: a throwaway cluster (as the postgres user when run as root, since PostgreSQL
# refuses root), reached through a socket in its folder
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
runas=()
if [ -z "$pgbin" ]; then
	echo "FAIL: scale: PostgreSQL is needed (build-aux/install-deps test installs it)"
	exit 1
fi
pgdir=$(mktemp -d /tmp/animdex-scale-pg-XXXXXX)
if [ "$(id -u)" = 0 ]; then
	chown postgres "$pgdir"
	runas=(runuser -u postgres --)
fi
"${runas[@]}" "$pgbin/initdb" -D "$pgdir/data" -U animdex -A trust -E UTF8 --locale=C -N >"$pgdir/initdb.log" 2>&1 &&
	"${runas[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w \
		-o "-k $pgdir -c listen_addresses=''" start >/dev/null 2>&1 &&
	"$pgbin/psql" -q -h "$pgdir" -U animdex -d postgres -c "CREATE DATABASE scale"
check "scale: a PostgreSQL cluster" $? "$(tail -n 3 "$pgdir/initdb.log" "$pgdir/server.log" 2>/dev/null)"
pg="host=$pgdir user=animdex dbname=scale"
"$ANIMDEXD" import --db "$pg" --quiet "$dir/files" >"$dir/import.log" 2>&1
check "scale: import into PostgreSQL" $? "$(tail -n 3 "$dir/import.log")"
# the import ends with the tables' statistics and visibility made (a manual VACUUM ANALYZE,
# which autovacuum's runs do not mark), so that a rig lookup is an index-only scan at once
made=$("$pgbin/psql" -qAt -h "$pgdir" -U animdex -d scale -c "SELECT count(*) FROM pg_stat_user_tables WHERE relname IN ('resources', 'tracks', 'rig_nodes') AND last_vacuum IS NOT NULL AND last_analyze IS NOT NULL")
plan=$("$pgbin/psql" -qAt -h "$pgdir" -U animdex -d scale -c "EXPLAIN SELECT resource_id FROM rig_nodes WHERE name = 'no such bone'")
check "scale: a PostgreSQL import leaves its statistics made" \
	"$([ "$made" = 3 ] && echo "$plan" | grep -q 'Index Only Scan using rig_nodes_by_name' && echo 0 || echo 1)" \
	"$made of 3 tables vacuumed and analysed; plan: $plan"
start "$pg"
PATH="$pgbin:$PATH" python3 "$src/tests/scale/check.py" "$base" "postgresql:$pg" "$queries" >"$dir/check.log" 2>&1
check "scale: PostgreSQL list, sorts, cursors, totals, filters and searches as the reference" $? \
	"$(grep -m 5 FAIL "$dir/check.log"; tail -n 2 "$dir/check.log")"
tail -n 1 "$dir/check.log"
for f in "$dir"/more/pack_0000*.gltf; do
	curl -s -o /dev/null --data-binary @"$f" "$base/api/resources?filename=$(basename "$f")"
done
for id in $(seq 1 11 500); do curl -s -o /dev/null -X DELETE "$base/api/resources/$id"; done
kept=$(curl -s "$base/api/health" | python3 -c 'import json,sys; c=json.load(sys.stdin)["counts"]; print(c["resources"], c["tracks"], c["blobs"], c["bytes"])')
counted=$("$pgbin/psql" "$pg" -At -F ' ' -c "SELECT (SELECT count(*) FROM resources), (SELECT coalesce(sum(track_count),0) FROM resources), (SELECT count(*) FROM blobs), (SELECT coalesce(sum(size),0) FROM blobs)")
check "scale: PostgreSQL's kept counts equal count(*) after uploads and deletes" \
	"$([ "$kept" = "$counted" ] && echo 0 || echo 1)" "kept $kept, counted $counted"
stop
exit $status
