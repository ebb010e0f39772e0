#!/bin/sh
# blender.sh SCRIPT [ARGS...]: Debian's Blender, headless, with no sound and its own home: HOME,
# TMPDIR and XDG_RUNTIME_DIR point into a scratch folder removed when Blender ends, so that its
# cache, its configuration and an audio client's sockets are not left in /tmp. Exits as Blender
# does (--python-exit-code 1: a failing script is a failure).
set -u
script=$1
shift
scratch=$(mktemp -d "${TMPDIR:-/tmp}/animdex-blender-home-XXXXXX") || exit 1
HOME=$scratch TMPDIR=$scratch XDG_RUNTIME_DIR=$scratch XDG_CACHE_HOME=$scratch/.cache \
	XDG_CONFIG_HOME=$scratch/.config blender -b -noaudio --factory-startup \
	--python-exit-code 1 --python "$script" -- "$@"
rc=$?
rm -rf "$scratch"
exit $rc
