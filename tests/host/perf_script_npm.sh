#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# uwprof report -f perf-script read by a parser that is not ours: stackvis's
# stackcollapse-perf (Joyent's node-stackvis, from the npm registry), which
# folds 'perf script' text as stackcollapse-perf.pl does.  Its stacks and
# counts must be those of -f folded, on the recorded fixture (see
# report_cli.sh).  make setup installs the package into build/npm/ with
# Debian's npm (scripts/setup.sh); the test needs no network, and without
# the package or node it fails, saying to run make setup.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-$here/../../build/host/uwprof}
UWPROF=$(cd "$(dirname "$UWPROF")" && pwd)/$(basename "$UWPROF")
BUILD=${BUILD:-$here/../../build}
STACKVIS_VERSION=0.5.0	# as scripts/setup.sh installs it
npm_dir=$BUILD/npm/stackvis-$STACKVIS_VERSION
collapse=$npm_dir/node_modules/stackvis/cmd/stackcollapse-perf
data=$here/../data/report
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$data" || exit 1

rep() { "$UWPROF" report -q --symfs . "$@"; }

if [ ! -f "$collapse" ] || ! command -v node >/dev/null; then
	fail "perf-script through stackvis: no $collapse or no node (make setup installs them)"
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
