#!/bin/sh
# npm-tool.sh DIR PACKAGE: makes sure DIR/node_modules holds PACKAGE at the version DIR's
# package.json pins (installing it from the lock file with npm ci when it is missing or
# another version), and that this machine's Node.js is one that version supports. Says what
# it found on one line; exits 1 with the reason when something is wrong.
set -u
dir=$1
package=$2
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "FAIL: $package: node and npm are needed (./autogen.sh installs Debian's)"
	exit 1
fi
pinned=$(sed -n "s/.*\"$package\": \"\\([^\"]*\\)\".*/\\1/p" "$dir/package.json" | head -n 1)
installed() {
	node -e "try { console.log(require('$dir/node_modules/$package/package.json').version) } catch (e) {}"
}
if [ "$(installed)" != "$pinned" ]; then
	echo "npm-tool: installing $package $pinned in $dir (npm ci, from its package-lock.json)"
	rm -rf "$dir/node_modules"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || {
		echo "FAIL: $package: npm ci in $dir failed"
		exit 1
	}
fi
if [ "$(installed)" != "$pinned" ]; then
	echo "FAIL: $package: $dir/package.json pins $pinned, but npm installed '$(installed)'"
	exit 1
fi
# the engines field: ">=18" and the like; only a lower bound on the major version is read
need=$(node -p "(require('$dir/node_modules/$package/package.json').engines || {}).node || ''")
need_major=$(echo "$need" | sed -n 's/^>= *\([0-9][0-9]*\).*/\1/p')
have=$(node -p 'process.versions.node')
have_major=${have%%.*}
if [ -n "$need_major" ] && [ "$have_major" -lt "$need_major" ]; then
	echo "FAIL: $package $pinned needs Node.js $need, and this machine's node is $have:" \
		"pin a version of $package that supports it in $dir/package.json (Debian 12's" \
		"nodejs is 18)"
	exit 1
fi
echo "npm-tool: $package $pinned on Node.js $have (it needs ${need:-any})"
