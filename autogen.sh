#!/bin/sh
# autogen.sh [CONFIGURE-ARGS...]: installs what is missing (as root, from Debian's packages;
# otherwise prints the apt-get line), then runs autoreconf and configure.
set -eu
cd "$(dirname "$0")"

# Build: compiler, autotools, the libraries. Tests: Check, libcurl, curl, sqlite3, clang-format,
# Chromium (the web page), wrk (load), clang and its sanitizer runtimes (fuzzing), Blender and
# numpy (exported glTF opened in a real Blender), systemd's tools (the unit), PostgreSQL (the
# shared catalogue's tests start a throwaway cluster of their own).
packages="build-essential autoconf automake pkg-config libmicrohttpd-dev libjansson-dev \
libsqlite3-dev libpq-dev zlib1g-dev check libcurl4-openssl-dev curl sqlite3 clang-format libjs-chart.js libjs-three chromium wrk clang libclang-rt-14-dev \
blender python3-numpy systemd postgresql"

missing=""
for p in $packages; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "autogen.sh: installing:$missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $missing
	else
		echo "autogen.sh: missing packages; run as root:" >&2
		echo "  apt-get update && apt-get install -y$missing" >&2
		exit 1
	fi
fi

# The browser test runs Debian's Chromium with node (from the machine, or Debian's).
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm
	else
		echo "autogen.sh: node and npm are missing; run as root: apt-get install -y nodejs npm" >&2
	fi
fi

autoreconf -fi
./configure "$@"
