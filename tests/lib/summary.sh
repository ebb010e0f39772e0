#!/bin/sh
# summary.sh [BUILDDIR...]: adds up the results of `make check` into one closing line,
# "N passed, N failed, N skipped", and exits non-zero when anything failed.
#
# A Check program's log ends with "NN%: Checks: C, Failures: F, Errors: E"; each "SKIP:" line
# in a log is one test that skipped (and counted as a check). A script that prints "PASS: x"
# and "FAIL: x" lines counts each of them; when it printed "PLAN: N" first (the browser tests),
# the planned checks it never made (it died part way) count as failed. Any other test counts as one,
# by its automake result. A test program that crashed before its summary counts one failure.
set -u
[ $# -gt 0 ] || set -- .
passed=0 failed=0 skipped=0
for trs in $(for dir in "$@"; do find "$dir/tests" -name '*.trs'; done | sort); do
	log=${trs%.trs}.log
	result=$(sed -n 's/^:test-result: //p' "$trs" | head -n 1)
	line=$(grep -E '^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$log" 2>/dev/null | tail -n 1)
	skips=$(grep -c '^SKIP:' "$log" 2>/dev/null)
	if [ -n "$line" ]; then
		checks=$(echo "$line" | sed 's/.*Checks: \([0-9]*\).*/\1/')
		fails=$(echo "$line" | sed 's/.*Failures: \([0-9]*\).*/\1/')
		errors=$(echo "$line" | sed 's/.*Errors: \([0-9]*\).*/\1/')
		bad=$((fails + errors))
		if [ "$bad" -eq 0 ] && [ "$result" != PASS ]; then
			bad=1 # it crashed or leaked after its tests
		fi
		passed=$((passed + checks - fails - errors - skips))
		failed=$((failed + bad))
		skipped=$((skipped + skips))
		elif grep -qE '^(PASS|FAIL): ' "$log"; then
		# a script that reports its checks one per line (tests/scripts/web.sh)
		p=$(grep -c '^PASS: ' "$log")
		f=$(grep -c '^FAIL: ' "$log")
		plan=$(sed -n 's/^PLAN: \([0-9]*\)$/\1/p' "$log" | head -n 1)
		if [ -n "$plan" ] && [ $((p + f + skips)) -lt "$plan" ]; then
			echo "summary.sh: $log made $((p + f + skips)) of its $plan checks: the rest count as failed"
			f=$((f + plan - p - f - skips))
		fi
		if [ "$f" -eq 0 ] && [ "$result" != PASS ]; then
			f=1
		fi
		passed=$((passed + p))
		failed=$((failed + f))
		skipped=$((skipped + skips))
	else
		case "$result" in
		PASS | XFAIL) passed=$((passed + 1)) ;;
		SKIP) skipped=$((skipped + 1)) ;;
		*) failed=$((failed + 1)) ;;
		esac
	fi
	if [ "$result" != PASS ] && [ "$result" != SKIP ]; then
		echo "--- $log"
		tail -n 40 "$log"
	fi
done
if [ $((passed + failed + skipped)) -eq 0 ]; then
	echo "summary.sh: no test results found under $*" >&2
	failed=1
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
