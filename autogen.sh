#!/bin/sh
# autogen.sh [CONFIGURE-ARGS...]: installs what building and running animdexd needs and is
# missing (build-aux/install-deps build: as root, from Debian's packages; otherwise it prints
# the apt-get line), then runs autoreconf and configure. The test command (tests/run-all)
# installs what the tests need besides.
set -eu
cd "$(dirname "$0")"
sh build-aux/install-deps build
autoreconf -fi
./configure "$@"
