#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# uwprof report -f perf-script read by a parser that is not ours: stackvis's
# stackcollapse-perf (Joyent's node-stackvis, from the npm registry), which
# folds 'perf script' text as stackcollapse-perf.pl does.  Its stacks and
# counts must be those of -f folded, on the recorded fixture (see
# report_cli.sh).  The package is installed once into build/npm/ with the
# machine's npm (no global install, no install scripts); without npm or the
# registry the test is skipped, saying so.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-$here/../../build/host/uwprof}
UWPROF=$(cd "$(dirname "$UWPROF")" && pwd)/$(basename "$UWPROF")
BUILD=${BUILD:-$here/../../build}
STACKVIS_VERSION=0.5.0
npm_dir=$BUILD/npm/stackvis-$STACKVIS_VERSION
collapse=$npm_dir/node_modules/stackvis/cmd/stackcollapse-perf
data=$here/../data/report
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$data" || exit 1

rep() { "$UWPROF" report -q --symfs . "$@"; }

if [ ! -f "$collapse" ] && command -v npm >/dev/null && command -v node >/dev/null; then
	mkdir -p "$npm_dir"
	echo "# installing stackvis@$STACKVIS_VERSION into $npm_dir"
	timeout 600 npm install --prefix "$npm_dir" --no-save --no-package-lock \
		--ignore-scripts --no-audit --no-fund --loglevel=error \
		"stackvis@$STACKVIS_VERSION" >"$tmp/npm.log" 2>&1 ||
		sed 's/^/#   /' "$tmp/npm.log" | tail -5
fi
if [ ! -f "$collapse" ]; then
	skip "perf-script through stackvis: not installed (needs node, npm and the npm registry)"
	finish
	exit
fi

check() {
	local name=$1
	shift
	rep -f perf-script "$@" fixture.data >"$tmp/ps"
	rep -f folded "$@" fixture.data | sort >"$tmp/folded"
	if ! node "$collapse" <"$tmp/ps" >"$tmp/sv" 2>"$tmp/err"; then
		fail "$name: stackcollapse-perf failed: $(head -3 "$tmp/err")"
		return
	fi
	# stackvis writes "comm`f1,comm`f2,... N", outermost first.
	sed 's/,/;/g; s/\(^\|;\)[^;`]*`/\1/g' "$tmp/sv" | sort >"$tmp/sv.folded"
	if [ -s "$tmp/folded" ] && cmp -s "$tmp/folded" "$tmp/sv.folded"; then
		ok "$name: stackvis folds -f perf-script into -f folded ($(wc -l <"$tmp/folded") stacks, $(awk '{s += $NF} END {print s}' "$tmp/folded") samples)"
	else
		fail "$name: stackvis's stacks differ from -f folded"
		diff "$tmp/folded" "$tmp/sv.folded" | head -20 | sed 's/^/#   /'
	fi
	if grep -q 'WARN\|warn' "$tmp/err"; then
		fail "$name: stackvis warns: $(head -3 "$tmp/err")"
	fi
}
check "all samples"
check "--pid 88 --time" --pid 88 --time 8.5,9.5
finish
