#!/bin/bash
# readme.sh: replays the README's "A session with curl" against a fresh daemon, in an
# empty folder, command by command in order, and compares each answer with the "# ..." lines
# the README shows under the command: a leading three-digit number is the HTTP status, "..."
# stands for anything, and white space is not compared (the README wraps long answers).
# Every command must succeed. Prints "PASS: x" / "FAIL: x".
set -u
src=${ANIMDEX_SRCDIR:-.}
dir=$(mktemp -d /tmp/animdex-readme-XXXXXX)
status=0
check() { # name ok detail
	if [ "$2" = 0 ]; then echo "PASS: $1"; else echo "FAIL: $1 ($3)"; status=1; fi
}
"$ANIMDEXD" --listen 127.0.0.1:0 --db "$dir/readme.db" --www "$src/www" --quiet >"$dir/out" 2>"$dir/err" &
daemon=$!
for _ in $(seq 1 25); do
	grep -q listening "$dir/out" 2>/dev/null && break
	sleep 0.2
done
base=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$dir/out")
mkdir "$dir/session"
# the session's code block
awk '/^## A session with curl/ {on = 1; next} on && /^```sh/ {inside = 1; next}
     inside && /^```/ {exit} inside {print}' "$src/README.md" >"$dir/block"
check "readme: the curl session is found" "$([ -s "$dir/block" ] && echo 0 || echo 1)" "no block"
# split it into commands (a heredoc stays with its command) and what each should answer
n=0
heredoc=""
while IFS= read -r line; do
	if [ -n "$heredoc" ]; then
		printf '%s\n' "$line" >>"$dir/cmd.$n"
		[ "$line" = "$heredoc" ] && heredoc=""
		continue
	fi
	case "$line" in
	"") ;;
	"# "*) printf '%s\n' "${line#\# }" >>"$dir/want.$n" ;;
	*)
		n=$((n + 1))
		printf '%s\n' "$line" >"$dir/cmd.$n"
		case "$line" in *"<<'"*) heredoc=$(echo "$line" | sed "s/.*<<'\([A-Z]*\)'.*/\1/") ;; esac
		;;
	esac
done <"$dir/block"
squash() { tr -d ' \t\r\n'; }
for i in $(seq 1 "$n"); do
	cmd=$(sed "s|http://127.0.0.1:8080|$base|g" "$dir/cmd.$i")
	first=$(head -n 1 "$dir/cmd.$i")
	want_status=""
	if [ -e "$dir/want.$i" ] && head -n 1 "$dir/want.$i" | grep -qE '^[0-9]{3} '; then
		want_status=$(head -c 3 "$dir/want.$i")
		sed -i '1s/^[0-9]\{3\} //' "$dir/want.$i"
		cmd="${cmd/curl /curl -s -w '\\n%{http_code}' }"
	else
		cmd="${cmd/curl /curl -s }"
	fi
	(cd "$dir/session" && bash -c "$cmd") >"$dir/got.$i" 2>"$dir/stderr.$i"
	rc=$?
	detail="exit $rc: $(head -c 300 "$dir/stderr.$i")"
	if [ $rc = 0 ] && [ -n "$want_status" ]; then
		got_status=$(tail -n 1 "$dir/got.$i")
		sed -i '$d' "$dir/got.$i"
		[ "$got_status" = "$want_status" ] || rc=1
		detail="status $got_status, not $want_status: $(head -c 300 "$dir/got.$i")"
	fi
	if [ $rc = 0 ] && [ -e "$dir/want.$i" ]; then
		got=$(squash <"$dir/got.$i")
		rest=$got
		want=$(squash <"$dir/want.$i")
		# each piece between "..." must come, in order
		while [ -n "$want" ]; do
			piece=${want%%...*}
			if [ "$piece" = "$want" ]; then want=""; else want=${want#*...}; fi
			[ -z "$piece" ] && continue
			case "$rest" in
			*"$piece"*) rest=${rest#*"$piece"} ;;
			*) rc=1; detail="expected '$piece' in: $(head -c 400 "$dir/got.$i")"; break ;;
			esac
		done
	fi
	check "readme: $first" "$([ $rc = 0 ] && echo 0 || echo 1)" "$detail"
done
kill -TERM "$daemon"
wait "$daemon"
# the run command (./autogen.sh) installs what building and running need, not the test tools
build=" $(sh "$src/build-aux/install-deps" build --list) "
tests=" $(sh "$src/build-aux/install-deps" test --list | head -n 1) "
for p in chromium blender postgresql clang check wrk; do
	case "$build" in
	*" $p "*) check "readme: the run command does not install $p" 1 "build-aux/install-deps build lists it" ;;
	*) check "readme: the run command does not install $p" 0 "" ;;
	esac
	case "$tests" in
	*" $p "*) check "readme: the test command installs $p" 0 "" ;;
	*) check "readme: the test command installs $p" 1 "build-aux/install-deps test lacks it" ;;
	esac
done
# the README's session runs curl on every line: the run command installs it (a fresh Debian 12
# has none)
if grep -q '^curl ' "$src/README.md"; then
	case "$build" in
	*" curl "*) check "readme: the run command installs curl, which the README's session uses" 0 "" ;;
	*) check "readme: the run command installs curl, which the README's session uses" 1 "build-aux/install-deps build lacks it" ;;
	esac
fi
grep -q 'sh build-aux/install-deps build' "$src/autogen.sh"
check "readme: autogen.sh installs the build set" $? "it does not call build-aux/install-deps build"
head -n 12 "$src/README.md" | grep -q "800 packages"
check "readme: the README says what the test command installs" $? "no word of it in its first lines"
rm -rf "$dir"
exit $status
