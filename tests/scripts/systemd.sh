#!/bin/sh
# systemd.sh: the systemd unit (src/systemd/animdexd.service.in), with its paths filled
# in as `make install` does, passes `systemd-analyze verify`. Where systemd's tools are absent
# it says so and skips (exit 77).
set -u
src=${ANIMDEX_SRCDIR:-.}
if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "SKIP: systemd: systemd-analyze is not installed"
	exit 77
fi
dir=$(mktemp -d /tmp/animdex-unit-XXXXXX)
bindir=$(dirname "$ANIMDEXD")
sed -e "s|%bindir%|$bindir|g" -e "s|%pkgdatadir%|$src|g" \
	"$src/src/systemd/animdexd.service.in" >"$dir/animdexd.service"
if systemd-analyze verify --man=no "$dir/animdexd.service" >"$dir/out" 2>&1 && ! [ -s "$dir/out" ]; then
	echo "PASS: systemd: systemd-analyze verify accepts animdexd.service"
	status=0
else
	cat "$dir/out"
	echo "FAIL: systemd: systemd-analyze verify reports the above"
	status=1
fi
grep -q '^DynamicUser=yes' "$dir/animdexd.service" && grep -q '^ProtectSystem=strict' "$dir/animdexd.service" &&
	grep -q '^StateDirectory=animdex' "$dir/animdexd.service" && grep -q '^NoNewPrivileges=yes' "$dir/animdexd.service"
if [ $? = 0 ]; then echo "PASS: systemd: a dynamic user, a state directory, strict sandboxing"; else
	echo "FAIL: systemd: the unit lost its user, state directory or sandboxing"; status=1; fi
rm -rf "$dir"
exit $status
